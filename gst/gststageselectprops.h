/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The frame selection properties (indices, indices-file, ranges, stride,
 * offset) of the elements that select frames: stagegather, stagerange,
 * stagestride (through their base, GstStageSelector), stagesrc, and
 * stageslice's stride. One definition of each property (name, blurb,
 * default, allowed values), one place that stores and reports them, and
 * one rule for the properties that exclude each other, so a property says
 * and checks the same on every element that has it. Internal to the
 * plugin. */
#ifndef __GST_STAGE_SELECT_PROPS_H__
#define __GST_STAGE_SELECT_PROPS_H__

#include <gst/gst.h>

#include "select.h"

G_BEGIN_DECLS

/* A property's place after the element's first id (see _install); the
 * strings first. */
typedef enum
{
  GST_STAGE_SELECT_PROP_INDICES,
  GST_STAGE_SELECT_PROP_INDICES_FILE,
  GST_STAGE_SELECT_PROP_RANGES,
  GST_STAGE_SELECT_PROP_STRIDE,
  GST_STAGE_SELECT_PROP_OFFSET,
  GST_STAGE_SELECT_N_PROPS
} GstStageSelectProp;

/* Which properties an element has, and how a bad value is reported when
 * it is set (it is always refused at start). */
typedef enum
{
  GST_STAGE_SELECT_INDICES = 1 << GST_STAGE_SELECT_PROP_INDICES,
  GST_STAGE_SELECT_INDICES_FILE = 1 << GST_STAGE_SELECT_PROP_INDICES_FILE,
  GST_STAGE_SELECT_RANGES = 1 << GST_STAGE_SELECT_PROP_RANGES,
  GST_STAGE_SELECT_STRIDE = 1 << GST_STAGE_SELECT_PROP_STRIDE,
  GST_STAGE_SELECT_OFFSET = 1 << GST_STAGE_SELECT_PROP_OFFSET,
  /* a bad indices or ranges value is a g_warning when set, not only a
   * line in the debug log */
  GST_STAGE_SELECT_WARN_WHEN_SET = 1 << 8,
} GstStageSelectFlags;

#define GST_STAGE_SELECT_ALL (GST_STAGE_SELECT_INDICES | \
    GST_STAGE_SELECT_INDICES_FILE | GST_STAGE_SELECT_RANGES | \
    GST_STAGE_SELECT_STRIDE | GST_STAGE_SELECT_OFFSET)

/* The values, under the owning element's object lock. */
typedef struct
{
  gchar *indices;
  gchar *indices_file;
  gchar *ranges;
  guint stride;
  guint64 offset;
} GstStageSelectProps;

/* Installs the properties of @flags on @klass, each with id @first_id +
 * its GstStageSelectProp (an element reserves GST_STAGE_SELECT_N_PROPS
 * ids from @first_id), and remembers @flags for the element's type. */
void gst_stage_select_props_install (GObjectClass * klass, guint first_id,
    GstStageSelectFlags flags);

void gst_stage_select_props_init (GstStageSelectProps * props);
void gst_stage_select_props_clear (GstStageSelectProps * props);

/* For set_property / get_property with @id = prop_id - first_id: FALSE
 * when @id is none of ours. Set checks a value now (see the flags) and
 * keeps it even when invalid, so that start refuses it with an error
 * instead of running with a value the user did not ask for. */
gboolean gst_stage_select_props_set (GstObject * owner,
    GstStageSelectProps * props, guint id, const GValue * value);
gboolean gst_stage_select_props_get (GstObject * owner,
    GstStageSelectProps * props, guint id, GValue * value);

/* The selection the properties of @owner ask for, or NULL and a
 * GST_RESOURCE_ERROR naming the property and its value: a value out of
 * its allowed range, two properties that exclude each other, a value that
 * does not parse. With nothing set it is every frame (a stride of 1), or
 * an error for an element without 'stride' (a gather needs a list). */
StageSelect *gst_stage_select_props_create (GstObject * owner,
    GstStageSelectProps * props, GError ** error);

/* The output rate divisor a selector announces in its caps: the stride,
 * clamped to the allowed values (caps queries come before start refuses
 * a bad one), or 1 for an element without 'stride'. */
guint gst_stage_select_props_rate_divisor (GstObject * owner,
    GstStageSelectProps * props);

/* The stride check of the selections, for an element that keeps its
 * stride outside a StageSelect (stageslice): FALSE and the error for a
 * value out of the allowed range. */
gboolean gst_stage_select_check_stride (guint stride, GError ** error);

G_END_DECLS

#endif /* __GST_STAGE_SELECT_PROPS_H__ */
