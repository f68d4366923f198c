/* spjson: JSON text for the tools' writers (stageprof-report's JSON output,
 * the merged traces of stage-batch and stageprof-report). */
#ifndef __SP_JSON_H__
#define __SP_JSON_H__

#include <glib.h>

G_BEGIN_DECLS

/* `s` as a JSON string, quotes included; NULL as null. Bytes that are not
 * UTF-8 become U+FFFD, so the output is always strict JSON. */
void sp_json_str (GString * out, const gchar * s);
/* `v` with 10 significant digits; NaN and infinities as null. */
void sp_json_num (GString * out, gdouble v);

G_END_DECLS

#endif /* __SP_JSON_H__ */
