/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spdot: the pipeline graph (from the links stageprof records in its
 * trace) in Graphviz DOT, coloured by self time, queues labelled with their
 * levels, streaming threads as clusters. */
#ifndef __SP_DOT_H__
#define __SP_DOT_H__

#include "spreport.h"

G_BEGIN_DECLS

gchar *sp_dot_render (const SpProfile * p);

G_END_DECLS

#endif /* __SP_DOT_H__ */
