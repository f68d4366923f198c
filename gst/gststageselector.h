/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstStageSelector: base class of the frame selectors (stagestride,
 * stagerange, stagegather). It owns the frame index, the counters, caps
 * framerate, early EOS and flush/seek handling, and the selection
 * properties (gststageselectprops.h): a subclass only says which of them
 * it has, as videoscale and videoconvert only describe themselves over
 * their base.
 */
#ifndef __GST_STAGE_SELECTOR_H__
#define __GST_STAGE_SELECTOR_H__

#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>

#include "gststageselectprops.h"
#include "select.h"

G_BEGIN_DECLS

#define GST_TYPE_STAGE_SELECTOR (gst_stage_selector_get_type ())
G_DECLARE_DERIVABLE_TYPE (GstStageSelector, gst_stage_selector, GST,
    STAGE_SELECTOR, GstBaseTransform)

/**
 * GstStageSelectorClass:
 * @create_select: build the selection from the current properties; called
 *   when the element starts (READY to PAUSED). On failure return NULL and
 *   set @error in the GST_RESOURCE_ERROR domain with a message that names
 *   the property and its value; the base class posts it as an element error.
 *   The default builds it from the selection properties.
 * @get_rate_divisor: return TRUE and set *@divisor when the output keeps
 *   every *@divisor-th frame of a contiguous run (constant output rate
 *   input-rate / divisor), FALSE when the output rate is irregular (caps get
 *   framerate 0/1). Called during caps negotiation, possibly before start,
 *   so it reads the properties rather than the selection. The default: the
 *   'stride' property, or 1 without one.
 */
struct _GstStageSelectorClass
{
  GstBaseTransformClass parent_class;

  StageSelect *(*create_select) (GstStageSelector * self, GError ** error);
  gboolean (*get_rate_divisor) (GstStageSelector * self, guint * divisor);

  gpointer _gst_reserved[GST_PADDING];
};

/* For subclass class_init: installs the selection properties of @flags,
 * which the base class then stores, reports and turns into the selection
 * (gststageselectprops.h). */
void gst_stage_selector_class_install_select_props
    (GstStageSelectorClass * klass, GstStageSelectFlags flags);

G_END_DECLS

#endif /* __GST_STAGE_SELECTOR_H__ */
