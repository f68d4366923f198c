/* gst-stages: stagebin, replicated queue-connected pipeline stages.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:element-stagebin
 * @title: stagebin
 *
 * Runs a chain of ops as Scanner runs a pipeline stage: `replicas` copies
 * of the chain, each in its own thread behind a queue, fed work packets of
 * `work-packet-size` consecutive frames round-robin, with the output put
 * back in input order. The output is frame for frame what the plain chain
 * gives. Ops must be stateless per frame (no op may depend on the frames a
 * sibling replica saw); with replicas=1 any chain works. A chain with an op
 * known to depend on earlier frames (stagestride, stagerange, stagegather,
 * videorate, or factory metadata "stage-stateful") is refused with an error
 * when replicas > 1, and runs with one replica when replicas=0.
 *
 * Consecutive ops on another device (factory metadata "stage-device", or
 * pad templates with memory:CUDAMemory) form their own stage behind their
 * own queue, `Ops[y]`, with one upload before and one download after.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=60 ! video/x-raw,width=640,height=480 ! \
 *     stagebin ops="videoflip method=clockwise ! videobalance saturation=0.5" replicas=2 ! fakesink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include <gst/video/video.h>

#include "gststagebin.h"
#include "gststagebinplan.h"
#include "gststageutil.h"
#include "gststagedispatch.h"
#include "gststagereorder.h"
#include "select.h"

GST_DEBUG_CATEGORY_STATIC (gst_stage_bin_debug);
#define GST_CAT_DEFAULT gst_stage_bin_debug

#define KERNEL_NAME_KEY "stage-kernel-thread-name"

/* Longest ops string / problem text quoted in a message, in bytes */
#define QUOTED_OPS_MAX 400
#define QUOTED_PROBLEM_MAX 1000

#define DEFAULT_PROP_OPS NULL
#define DEFAULT_PROP_REPLICAS 0
#define DEFAULT_PROP_WORK_PACKET_SIZE 0
#define DEFAULT_PROP_QUEUE_SIZE 0
#define DEFAULT_PROP_STAGE_NAME "Pipeline"

enum
{
  PROP_0,
  PROP_OPS,
  PROP_REPLICAS,
  PROP_WORK_PACKET_SIZE,
  PROP_QUEUE_SIZE,
  PROP_STAGE_NAME,
  PROP_REPLICAS_USED,
  PROP_WORK_PACKET_SIZE_USED,
  PROP_QUEUE_SIZE_USED,
  PROP_DEVICE_GROUPS,
};

struct _GstStageBin
{
  GstBin parent;

  GstPad *sinkpad;
  GstPad *srcpad;

  /* properties, under the object lock */
  gchar *ops;
  guint replicas;
  guint packet_size;
  guint queue_size;
  gchar *stage_name;
  guint replicas_used;
  guint packet_size_used;
  guint queue_size_used;
  gchar *device_groups;

  /* Built at READY->PAUSED, torn down at PAUSED->READY; only the state
   * change and the dispatcher's caps callback touch them. */
  GstElement *dispatch;
  GstElement *reorder;
  GPtrArray *queues;            /* every replica queue, owned by the bin */
  GPtrArray *children;          /* what we added, to remove it again */
};

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

#define gst_stage_bin_parent_class parent_class
G_DEFINE_TYPE_WITH_CODE (GstStageBin, gst_stage_bin, GST_TYPE_BIN,
    GST_DEBUG_CATEGORY_INIT (gst_stage_bin_debug, "stagebin", 0,
        "replicated pipeline stages"));
GST_ELEMENT_REGISTER_DEFINE (stagebin, "stagebin", GST_RANK_NONE,
    GST_TYPE_STAGE_BIN);

/* ---------------------------------------------------------------------- */
/* Parsing and checking the ops chain                                      */

/* One parsed copy of the chain, in data-flow order. */
typedef struct
{
  GstBin *bin;                  /* what gst_parse made; emptied when built */
  GPtrArray *elements;          /* GstElement*, borrowed from bin */
} OpsChain;

static void
ops_chain_clear (OpsChain * chain)
{
  g_clear_pointer (&chain->elements, g_ptr_array_unref);
  gst_clear_object (&chain->bin);
}

static GstPad *
only_pad (GstElement * element, GstPadDirection dir)
{
  GList *l = dir == GST_PAD_SRC ? element->srcpads : element->sinkpads;

  return l ? GST_PAD (l->data) : NULL;
}

/* Checks that every element has one input and one output, then walks the
 * links from the unlinked input to the unlinked output. */
static gchar *
ops_chain_order (OpsChain * chain)
{
  GstElement *head = NULL, *e;
  GList *l;
  guint n_children;

  GST_OBJECT_LOCK (chain->bin);
  n_children = chain->bin->numchildren;
  for (l = chain->bin->children; l; l = l->next) {
    GstPad *sink;

    e = GST_ELEMENT (l->data);
    if (e->numsinkpads != 1 || e->numsrcpads != 1) {
      gchar *why = g_strdup_printf ("element '%s' has %u input(s) and %u "
          "output(s), every op needs exactly one of each (no sources, sinks, "
          "tees or elements with dynamic pads)", GST_OBJECT_NAME (e),
          e->numsinkpads, e->numsrcpads);
      GST_OBJECT_UNLOCK (chain->bin);
      return why;
    }
    sink = only_pad (e, GST_PAD_SINK);
    if (!gst_pad_is_linked (sink)) {
      if (head != NULL) {
        GST_OBJECT_UNLOCK (chain->bin);
        return g_strdup ("it has more than one unlinked input; stagebin "
            "needs one linear chain 'a ! b ! c'");
      }
      head = e;
    }
  }
  GST_OBJECT_UNLOCK (chain->bin);

  if (head == NULL)
    return g_strdup ("it has no unlinked input");

  for (e = head; e != NULL;) {
    GstPad *peer = gst_pad_get_peer (only_pad (e, GST_PAD_SRC));

    g_ptr_array_add (chain->elements, e);
    if (chain->elements->len > n_children)
      break;
    e = NULL;
    if (peer) {
      e = GST_ELEMENT (gst_object_get_parent (GST_OBJECT (peer)));
      gst_object_unref (peer);
      /* still referenced by the bin */
      if (e)
        gst_object_unref (e);
    }
  }
  if (chain->elements->len != n_children)
    return g_strdup ("it is not one linear chain 'a ! b ! c'");
  return NULL;
}

static gboolean
ops_chain_parse (const gchar * desc, OpsChain * chain, gchar ** problem)
{
  GError *err = NULL;
  GstElement *bin;

  memset (chain, 0, sizeof (*chain));
  if (desc == NULL || *desc == '\0') {
    *problem = g_strdup ("it is empty; set ops to a chain such as "
        "\"videoconvert ! videoflip method=clockwise\"");
    return FALSE;
  }
  bin = gst_parse_bin_from_description_full (desc, FALSE, NULL,
      GST_PARSE_FLAG_FATAL_ERRORS, &err);
  if (bin == NULL || err != NULL) {
    *problem = g_strdup_printf ("it does not parse: %s",
        err ? err->message : "unknown error");
    g_clear_error (&err);
    if (bin)
      gst_object_unref (gst_object_ref_sink (bin));
    return FALSE;
  }
  chain->bin = GST_BIN (gst_object_ref_sink (bin));
  chain->elements = g_ptr_array_new ();
  *problem = ops_chain_order (chain);
  if (*problem) {
    ops_chain_clear (chain);
    return FALSE;
  }
  return TRUE;
}

static gboolean
caps_have_cuda (GstCaps * caps)
{
  guint i;

  for (i = 0; caps && i < gst_caps_get_size (caps); i++) {
    GstCapsFeatures *f = gst_caps_get_features (caps, i);

    /* memory:ANY (videobalance, videoconvert) accepts CUDA too but needs
     * no CUDA stage; contains() says TRUE for it, so skip it. */
    if (f && !gst_caps_features_is_any (f) &&
        gst_caps_features_contains (f, "memory:CUDAMemory"))
      return TRUE;
  }
  return FALSE;
}

static gboolean is_factory (GstElement * e, const gchar * name);
static gboolean takes_system_memory (GstElement * e, GstPadDirection dir);

/* The device an op runs on: its factory says so ("stage-device"), or its
 * pads take only CUDA memory, or it is a CUDA transfer (cudaupload,
 * cudadownload: they belong to the GPU stage); NULL when the op takes
 * anything (capsfilter, identity, queue), so it does not split a device
 * group. An op whose pads take both CUDA and system memory (stageresize
 * built with CUDA) is flexible: the memory it will negotiate decides, see
 * gst_stage_plan_resolve_flexible(). */
static const gchar *
op_device (GstElement * e)
{
  GstElementFactory *f = gst_element_get_factory (e);
  const gchar *dev = f ? gst_element_factory_get_metadata (f,
      "stage-device") : NULL;
  gboolean any = TRUE, cuda = FALSE;
  GList *l;

  for (l = gst_element_class_get_pad_template_list (GST_ELEMENT_GET_CLASS
          (e)); l; l = l->next) {
    GstCaps *caps = gst_pad_template_get_caps (GST_PAD_TEMPLATE (l->data));

    cuda |= caps_have_cuda (caps);
    any &= gst_caps_is_any (caps);
    gst_caps_unref (caps);
  }
  if (dev)
    return g_intern_string (dev);
  if (cuda && !is_factory (e, "cudaupload") &&
      !is_factory (e, "cudadownload") &&
      takes_system_memory (e, GST_PAD_SINK) &&
      takes_system_memory (e, GST_PAD_SRC))
    return GST_STAGE_PLAN_FLEXIBLE;
  if (cuda)
    return g_intern_static_string ("cuda");
  return any ? NULL : g_intern_static_string ("cpu");
}

/* "cuda" or "cpu" when the peer of @pad offers only CUDA or only system
 * memory, else NULL (not linked, ANY, or both). */
static const gchar *
peer_memory (GstPad * pad)
{
  GstCaps *caps = gst_pad_peer_query_caps (pad, NULL);
  gboolean cuda = TRUE, sys = TRUE;
  guint i;

  if (caps == NULL || gst_caps_is_any (caps) || gst_caps_is_empty (caps)) {
    gst_clear_caps (&caps);
    return NULL;
  }
  for (i = 0; i < gst_caps_get_size (caps); i++) {
    GstCapsFeatures *f = gst_caps_get_features (caps, i);
    gboolean c = f && !gst_caps_features_is_any (f) &&
        gst_caps_features_contains (f, "memory:CUDAMemory");

    cuda &= c;
    sys &= !c;
  }
  gst_caps_unref (caps);
  return cuda ? "cuda" : sys ? "cpu" : NULL;
}

/* Whether @e's @dir pad takes system memory; FALSE for a CUDA-only pad,
 * which then needs a transfer element next to it. */
static gboolean
takes_system_memory (GstElement * e, GstPadDirection dir)
{
  GstPad *pad = only_pad (e, dir);
  GstCaps *caps = gst_pad_get_pad_template_caps (pad);
  gboolean sys = gst_caps_is_any (caps);
  guint i;

  for (i = 0; !sys && i < gst_caps_get_size (caps); i++) {
    GstCapsFeatures *f = gst_caps_get_features (caps, i);

    sys = f == NULL || gst_caps_features_is_any (f) ||
        gst_caps_features_is_equal (f,
        GST_CAPS_FEATURES_MEMORY_SYSTEM_MEMORY);
  }
  gst_caps_unref (caps);
  return sys;
}

static gboolean
is_factory (GstElement * e, const gchar * name)
{
  GstElementFactory *f = gst_element_get_factory (e);

  return f && g_str_equal (GST_OBJECT_NAME (f), name);
}

/* The first op whose output depends on the frames it saw before: each
 * replica sees only its own packets, so with replicas > 1 such an op gives
 * other output than the plain chain, silently. The frame selectors count
 * frames (by type name: their base class may not be built); videorate
 * keeps and repeats frames; any other op can say so with the factory
 * metadata "stage-stateful" (any value but "false"). Encoders are not
 * refused wholesale: intra-only ones (jpegenc) replicate fine. */
static GstElement *
find_stateful_op (OpsChain * chain)
{
  GType selector = g_type_from_name ("GstStageSelector");
  guint i;

  for (i = 0; i < chain->elements->len; i++) {
    GstElement *e = g_ptr_array_index (chain->elements, i);
    GstElementFactory *f = gst_element_get_factory (e);
    const gchar *meta = f ? gst_element_factory_get_metadata (f,
        "stage-stateful") : NULL;

    if ((selector && g_type_is_a (G_OBJECT_TYPE (e), selector)) ||
        is_factory (e, "videorate") || (meta && g_strcmp0 (meta, "false")))
      return e;
  }
  return NULL;
}

/* "cudadownload ! cudaupload" between two GPU ops copies frames to the host
 * and back for nothing (the user had to write it for the chain to link):
 * drop the pair so GPU ops chain on device memory. */
static void
drop_transfer_pairs (OpsChain * chain)
{
  guint i;

  for (i = 0; i + 1 < chain->elements->len;) {
    GstElement *a = g_ptr_array_index (chain->elements, i);
    GstElement *b = g_ptr_array_index (chain->elements, i + 1);

    if (i > 0 && i + 2 < chain->elements->len &&
        is_factory (a, "cudadownload") && is_factory (b, "cudaupload") &&
        g_strcmp0 (op_device (g_ptr_array_index (chain->elements, i - 1)),
            "cuda") == 0 &&
        g_strcmp0 (op_device (g_ptr_array_index (chain->elements, i + 2)),
            "cuda") == 0) {
      gst_bin_remove (chain->bin, a);
      gst_bin_remove (chain->bin, b);
      g_ptr_array_remove_range (chain->elements, i, 2);
    } else {
      i++;
    }
  }
}

/* ---------------------------------------------------------------------- */
/* Building the replicas                                                   */

typedef struct
{
  guint n_groups;
  guint *group_of_op;
  const gchar **group_devices;
  /* the group starts / ends with an op that only takes CUDA memory */
  gboolean *needs_upload;
  gboolean *needs_download;
  gboolean uses_cuda;
} DevicePlan;

static void
device_plan_clear (DevicePlan * plan)
{
  g_free (plan->group_of_op);
  g_free (plan->group_devices);
  g_free (plan->needs_upload);
  g_free (plan->needs_download);
  memset (plan, 0, sizeof (*plan));
}

static guint count_gpus (void);

static gchar *
device_plan_make (GstStageBin * self, OpsChain * chain, DevicePlan * plan)
{
  guint i, n = chain->elements->len;
  const gchar **devices = g_new0 (const gchar *, n);
  GString *desc = g_string_new (NULL);

  plan->group_of_op = g_new0 (guint, n);
  plan->group_devices = g_new0 (const gchar *, n);
  plan->needs_upload = g_new0 (gboolean, n);
  plan->needs_download = g_new0 (gboolean, n);
  for (i = 0; i < n; i++)
    devices[i] = op_device (g_ptr_array_index (chain->elements, i));
  gst_stage_plan_resolve_flexible (devices, n, peer_memory (self->sinkpad),
      peer_memory (self->srcpad), count_gpus () > 0);
  plan->n_groups = gst_stage_plan_groups (devices, n, plan->group_of_op,
      plan->group_devices);

  for (i = 0; i < n; i++) {
    GstElement *e = g_ptr_array_index (chain->elements, i);
    guint y = plan->group_of_op[i];
    gboolean first = i == 0 || plan->group_of_op[i - 1] != y;
    gboolean last = i + 1 == n || plan->group_of_op[i + 1] != y;

    /* Inside the chain a CUDA-only op can only follow an upload (or parse
     * would have failed to link it); at the ends of the chain, or of a
     * group, stagebin adds the transfer itself. */
    plan->uses_cuda |= g_strcmp0 (plan->group_devices[y], "cuda") == 0;
    if (first && !takes_system_memory (e, GST_PAD_SINK))
      plan->needs_upload[y] = TRUE;
    if (last && !takes_system_memory (e, GST_PAD_SRC))
      plan->needs_download[y] = TRUE;
    if (first)
      g_string_append_printf (desc, "%sOps[%u]=%s: ", i ? "; " : "", y,
          plan->group_devices[y]);
    g_string_append_printf (desc, "%s%s", first ? "" : " ! ",
        GST_OBJECT_NAME (e));
  }
  g_free (devices);
  return g_string_free (desc, FALSE);
}

static GstElement *
make_queue (GstStageBin * self, guint replica, guint group, guint buffers)
{
  GstElement *q;
  gchar *name, *full;

  /* unique in the whole stagebin, so profiler tables need no path */
  name = g_strdup_printf ("queue%u_ops%u", replica, group);
  q = gst_element_factory_make ("queue", name);
  g_free (name);
  /* Only the buffer count bounds a replica: Q packets of K frames. Time
   * and byte limits would cut packets at sizes the schedule ignores. */
  g_object_set (q, "max-size-buffers", buffers, "max-size-bytes", 0,
      "max-size-time", (guint64) 0, "silent", TRUE, NULL);

  GST_OBJECT_LOCK (self);
  full = gst_stage_plan_thread_name (self->stage_name, replica, group);
  GST_OBJECT_UNLOCK (self);
  g_object_set_data_full (G_OBJECT (q), KERNEL_NAME_KEY,
      gst_stage_plan_kernel_thread_name (full), g_free);
  g_object_set_data_full (G_OBJECT (q), GST_STAGE_THREAD_NAME_KEY, full,
      g_free);
  g_ptr_array_add (self->queues, gst_object_ref (q));
  return q;
}

/* Adds @e to @bin and links @prev's output to it. */
static gboolean
append (GstBin * bin, GstPad ** prev, GstElement * e, gchar ** problem)
{
  gboolean ok = TRUE;
  gchar *name = gst_object_get_name (GST_OBJECT (e));

  /* On failure the bin sinks and drops its ref: a floating @e is gone. */
  if (!gst_bin_add (bin, e)) {
    if (*problem == NULL)
      *problem = g_strdup_printf ("the element name '%s' is taken inside "
          "the replica (stagebin names its queues queue<i>_ops<y>); give "
          "the op another name", name);
    g_free (name);
    return FALSE;
  }
  g_free (name);
  if (*prev)
    ok = gst_pad_link (*prev, only_pad (e, GST_PAD_SINK)) == GST_PAD_LINK_OK;
  *prev = only_pad (e, GST_PAD_SRC);
  return ok;
}

/* One replica: a bin with, per device group, a queue (the group's thread),
 * an upload if the group takes CUDA memory, its ops and a download. */
static GstElement *
build_replica (GstStageBin * self, guint i, OpsChain * chain,
    DevicePlan * plan, guint queue_buffers, gchar ** problem)
{
  GstBin *rbin;
  GstPad *prev = NULL, *first_sink = NULL;
  gboolean ok = TRUE;
  gchar *name;
  guint j;

  name = g_strdup_printf ("replica%u", i);
  rbin = GST_BIN (gst_bin_new (name));
  g_free (name);

  for (j = 0; j < chain->elements->len && ok; j++) {
    GstElement *e = g_ptr_array_index (chain->elements, j);
    guint y = plan->group_of_op[j];
    gboolean starts = j == 0 || plan->group_of_op[j - 1] != y;
    gboolean ends = j + 1 == chain->elements->len ||
        plan->group_of_op[j + 1] != y;

    if (starts) {
      GstElement *q = make_queue (self, i, y, queue_buffers);

      ok &= append (rbin, &prev, q, problem);
      if (!first_sink)
        first_sink = only_pad (q, GST_PAD_SINK);
      if (plan->needs_upload[y]) {
        GstElement *up = gst_element_factory_make ("cudaupload", NULL);

        if (!up) {
          *problem = g_strdup_printf ("op '%s' only takes CUDA memory but "
              "cudaupload is missing (gst-plugins-bad nvcodec and a CUDA "
              "driver are needed)", GST_OBJECT_NAME (e));
          ok = FALSE;
          break;
        }
        ok &= append (rbin, &prev, up, problem);
      }
    }
    /* Leaving the parse bin unlinks the op; we link it again in order. */
    gst_object_ref (e);
    gst_bin_remove (chain->bin, e);
    ok &= append (rbin, &prev, e, problem);
    gst_object_unref (e);
    if (ends && plan->needs_download[y]) {
      GstElement *down = gst_element_factory_make ("cudadownload", NULL);

      if (!down) {
        *problem = g_strdup ("cudadownload is missing");
        ok = FALSE;
        break;
      }
      ok &= append (rbin, &prev, down, problem);
    }
  }
  if (ok) {
    gst_element_add_pad (GST_ELEMENT (rbin), gst_ghost_pad_new ("sink",
            first_sink));
    gst_element_add_pad (GST_ELEMENT (rbin), gst_ghost_pad_new ("src",
            prev));
  } else {
    if (*problem == NULL)
      *problem = g_strdup ("its ops could not be linked again in a replica");
    gst_object_unref (gst_object_ref_sink (rbin));
    return NULL;
  }
  return GST_ELEMENT (rbin);
}

/* NVIDIA GPUs the driver sees, without linking CUDA: the driver lists one
 * directory per GPU. 0 when there is no driver. */
static guint
count_gpus (void)
{
  GDir *dir = g_dir_open ("/proc/driver/nvidia/gpus", 0, NULL);
  guint n = 0;

  while (dir && g_dir_read_name (dir))
    n++;
  if (dir)
    g_dir_close (dir);
  return n;
}

static guint64
physical_memory (void)
{
  long pages = sysconf (_SC_PHYS_PAGES), page = sysconf (_SC_PAGE_SIZE);

  return pages > 0 && page > 0 ? (guint64) pages * page : 0;
}

static void
set_queue_buffers (GstStageBin * self, guint buffers)
{
  guint i;

  for (i = 0; i < self->queues->len; i++)
    g_object_set (g_ptr_array_index (self->queues, i), "max-size-buffers",
        buffers, NULL);
}

/* Streaming thread, first caps: the frame size is known now, so the
 * estimated packet and queue sizes can be chosen. They are kept for the
 * rest of the run; a renegotiation does not resize the queues. */
static guint
on_caps (GstStageDispatch * dispatch, GstCaps * caps, gpointer user_data)
{
  GstStageBin *self = GST_STAGE_BIN (user_data);
  GstVideoInfo info;
  guint w = 0, h = 0, k, q, n;
  guint64 frame = 0;

  GST_OBJECT_LOCK (self);
  if (self->packet_size_used > 0) {
    GST_OBJECT_UNLOCK (self);
    return 0;
  }
  GST_OBJECT_UNLOCK (self);

  if (gst_video_info_from_caps (&info, caps)) {
    w = GST_VIDEO_INFO_WIDTH (&info);
    h = GST_VIDEO_INFO_HEIGHT (&info);
    frame = GST_VIDEO_INFO_SIZE (&info);
  }

  GST_OBJECT_LOCK (self);
  n = self->replicas_used;
  k = gst_stage_plan_estimate_packet (self->packet_size, w, h);
  q = gst_stage_plan_estimate_queue (self->queue_size, n, k, frame,
      physical_memory ());
  self->packet_size_used = k;
  self->queue_size_used = q;
  GST_OBJECT_UNLOCK (self);

  GST_INFO_OBJECT (self, "%ux%u frames of %" G_GUINT64_FORMAT " bytes: %u "
      "replicas, packets of %u, queues of %u packets", w, h, frame, n, k, q);
  set_queue_buffers (self, q * k);
  g_object_notify (G_OBJECT (self), "work-packet-size-used");
  g_object_notify (G_OBJECT (self), "queue-size-used");
  return k;
}

static void
add_child (GstStageBin * self, GstElement * e)
{
  gst_bin_add (GST_BIN (self), e);
  g_ptr_array_add (self->children, e);
}

static void
teardown (GstStageBin * self)
{
  guint i;

  gst_ghost_pad_set_target (GST_GHOST_PAD (self->sinkpad), NULL);
  gst_ghost_pad_set_target (GST_GHOST_PAD (self->srcpad), NULL);
  for (i = 0; i < self->children->len; i++) {
    GstElement *e = g_ptr_array_index (self->children, i);

    gst_element_set_state (e, GST_STATE_NULL);
    gst_bin_remove (GST_BIN (self), e);
  }
  g_ptr_array_set_size (self->children, 0);
  g_ptr_array_set_size (self->queues, 0);
  self->dispatch = NULL;
  self->reorder = NULL;
}

/* Replicas for @chain: the estimate runs a stateful chain once (and says
 * why, since the user asked for an estimate and may expect more); an
 * explicit replicas > 1 is refused. Returns 0 with @problem set then. */
static guint
choose_replicas (GstStageBin * self, const gchar * desc, OpsChain * chain,
    guint requested, gboolean uses_cuda, gchar ** problem)
{
  GstElement *op = find_stateful_op (chain);
  guint n = gst_stage_plan_estimate_replicas (requested,
      g_get_num_processors (), uses_cuda ? count_gpus () : 0);
  const gchar *factory;

  if (op == NULL || n <= 1)
    return n;
  factory = gst_element_get_factory (op) ?
      GST_OBJECT_NAME (gst_element_get_factory (op)) : G_OBJECT_TYPE_NAME (op);
  if (requested > 1) {
    *problem = g_strdup_printf ("op '%s' (%s) depends on the frames it saw "
        "before, and each of the %u replicas would see only its own packets, "
        "so the output would differ from the plain chain; use replicas=1, or "
        "move the op out of the stagebin", GST_OBJECT_NAME (op), factory,
        requested);
    return 0;
  }
  {
    char *qd = stage_select_quote (desc, strlen (desc), QUOTED_OPS_MAX);
    char *qn = stage_select_quote (GST_OBJECT_NAME (op),
        strlen (GST_OBJECT_NAME (op)), QUOTED_OPS_MAX);

    GST_ELEMENT_WARNING (self, CORE, FAILED, ("stagebin runs ops \"%s\" "
            "with one replica: op '%s' (%s) depends on the frames it saw "
            "before, and cannot be replicated.", qd ? qd : "", qn ? qn : "",
            factory), ("replicas=0 estimated %u", n));
    free (qd);
    free (qn);
  }
  return 1;
}

static gboolean
build (GstStageBin * self)
{
  gchar *desc, *problem = NULL, *groups = NULL;
  guint n = 1, requested, k, q, i;
  DevicePlan plan = { 0, };
  gboolean ok = TRUE;

  GST_OBJECT_LOCK (self);
  desc = g_strdup (self->ops);
  requested = self->replicas;
  k = self->packet_size;
  q = self->queue_size;
  self->replicas_used = 0;
  self->packet_size_used = 0;
  self->queue_size_used = 0;
  GST_OBJECT_UNLOCK (self);

  self->dispatch = g_object_new (GST_TYPE_STAGE_DISPATCH, "name", "dispatch",
      NULL);
  self->reorder = g_object_new (GST_TYPE_STAGE_REORDER, "name", "reorder",
      NULL);
  gst_stage_dispatch_set_packet_size (GST_STAGE_DISPATCH (self->dispatch),
      k ? k : 1);
  gst_stage_dispatch_set_caps_func (GST_STAGE_DISPATCH (self->dispatch),
      on_caps, self);
  add_child (self, self->dispatch);
  add_child (self, self->reorder);

  for (i = 0; i < n && ok; i++) {
    OpsChain chain;
    GstElement *replica;
    GstPad *input;
    guint first_queue = self->queues->len, j;

    /* A parse per replica: each replica needs its own op instances, with
     * the user's property values. */
    if (!ops_chain_parse (desc, &chain, &problem)) {
      ok = FALSE;
      break;
    }
    drop_transfer_pairs (&chain);
    if (i == 0) {
      /* the replica count depends on the devices the ops use */
      groups = device_plan_make (self, &chain, &plan);
      n = choose_replicas (self, desc, &chain, requested, plan.uses_cuda,
          &problem);
      if (n == 0) {
        n = requested;
        ops_chain_clear (&chain);
        ok = FALSE;
        break;
      }
    }
    replica = build_replica (self, i, &chain, &plan,
        (q ? q : GST_STAGE_PLAN_MAX_AUTO_QUEUE) * (k ? k : 1), &problem);
    ops_chain_clear (&chain);
    if (!replica) {
      ok = FALSE;
      break;
    }
    add_child (self, replica);
    input = gst_stage_reorder_add_input (GST_STAGE_REORDER (self->reorder));
    ok &= gst_pad_link (gst_stage_dispatch_add_output (GST_STAGE_DISPATCH
            (self->dispatch)), replica->sinkpads->data) == GST_PAD_LINK_OK;
    ok &= gst_pad_link (replica->srcpads->data, input) == GST_PAD_LINK_OK;
    for (j = first_queue; j < self->queues->len; j++)
      gst_stage_reorder_watch_pad (GST_STAGE_REORDER (self->reorder), input,
          only_pad (g_ptr_array_index (self->queues, j), GST_PAD_SRC));
  }
  device_plan_clear (&plan);

  if (!ok) {
    /* the ops string, element names and parse errors may hold any bytes:
     * the message must stay valid UTF-8 */
    char *qd = stage_select_quote (desc ? desc : "", desc ? strlen (desc) : 0,
        QUOTED_OPS_MAX);
    const gchar *why = problem ? problem : "linking the replicas failed";
    char *qp = stage_select_quote (why, strlen (why), QUOTED_PROBLEM_MAX);

    GST_ELEMENT_ERROR (self, CORE, FAILED,
        ("stagebin cannot use ops \"%s\": %s.", qd ? qd : "", qp ? qp : ""),
        ("replicas=%u", n));
    free (qd);
    free (qp);
    g_free (problem);
    g_free (desc);
    g_free (groups);
    teardown (self);
    return FALSE;
  }

  GST_OBJECT_LOCK (self);
  g_free (self->device_groups);
  self->device_groups = groups;
  self->replicas_used = n;
  GST_OBJECT_UNLOCK (self);
  g_free (desc);

  gst_ghost_pad_set_target (GST_GHOST_PAD (self->sinkpad),
      self->dispatch->sinkpads->data);
  gst_ghost_pad_set_target (GST_GHOST_PAD (self->srcpad),
      self->reorder->srcpads->data);
  /* The bin is in READY; children join it there and the chain-up takes
   * them all to PAUSED in sink-to-source order. */
  for (i = 0; i < self->children->len; i++)
    gst_element_set_state (g_ptr_array_index (self->children, i),
        GST_STATE_READY);
  g_object_notify (G_OBJECT (self), "replicas-used");
  g_object_notify (G_OBJECT (self), "device-groups");
  return TRUE;
}

/* ---------------------------------------------------------------------- */
/* GstElement / GstBin                                                     */

/* The numeric properties within what they allow (the param specs take
 * any value: see gst_stage_check_uint_prop); else the error is posted. */
static gboolean
settings_ok (GstStageBin * self)
{
  guint n, k, q;
  GError *err = NULL;

  GST_OBJECT_LOCK (self);
  n = self->replicas;
  k = self->packet_size;
  q = self->queue_size;
  GST_OBJECT_UNLOCK (self);
  if (gst_stage_check_uint_prop ("replicas", n, 0,
          GST_STAGE_PLAN_MAX_REPLICAS, "(0 = estimate)", &err)
      && gst_stage_check_uint_prop ("work-packet-size", k, 0,
          GST_STAGE_PLAN_MAX_PACKET, "(0 = estimate)", &err)
      && gst_stage_check_uint_prop ("queue-size", q, 0,
          GST_STAGE_PLAN_MAX_QUEUE, "(0 = estimate)", &err))
    return TRUE;
  return gst_stage_post_settings_error (GST_ELEMENT (self), err);
}

static GstStateChangeReturn
gst_stage_bin_change_state (GstElement * element, GstStateChange transition)
{
  GstStageBin *self = GST_STAGE_BIN (element);
  GstStateChangeReturn ret;

  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED
      && (!settings_ok (self) || !build (self)))
    return GST_STATE_CHANGE_FAILURE;

  ret = GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);

  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY ||
      (transition == GST_STATE_CHANGE_READY_TO_PAUSED &&
          ret == GST_STATE_CHANGE_FAILURE))
    teardown (self);
  return ret;
}

/* A queue's task announces its new thread with STREAM_STATUS ENTER, posted
 * from that thread just before GstTask names the thread after the task
 * object: renaming the task names the thread (and keeps the name when the
 * task restarts after a flush). */
static void
gst_stage_bin_handle_message (GstBin * bin, GstMessage * message)
{
  if (GST_MESSAGE_TYPE (message) == GST_MESSAGE_STREAM_STATUS) {
    GstStreamStatusType type;
    GstElement *owner = NULL;
    const GValue *val = gst_message_get_stream_status_object (message);
    const gchar *name = NULL;

    gst_message_parse_stream_status (message, &type, &owner);
    if (owner)
      name = g_object_get_data (G_OBJECT (owner), KERNEL_NAME_KEY);
    if (name && type == GST_STREAM_STATUS_TYPE_ENTER) {
      if (val && G_VALUE_HOLDS (val, GST_TYPE_TASK))
        gst_object_set_name (GST_OBJECT (g_value_get_object (val)), name);
#if defined(__GLIBC__)
      pthread_setname_np (pthread_self (), name);
#endif
      GST_DEBUG_OBJECT (bin, "thread of %s is %s", GST_OBJECT_NAME (owner),
          (const gchar *) g_object_get_data (G_OBJECT (owner),
              GST_STAGE_THREAD_NAME_KEY));
    }
  }
  GST_BIN_CLASS (parent_class)->handle_message (bin, message);
}

static void
gst_stage_bin_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstStageBin *self = GST_STAGE_BIN (object);

  GstState state;

  GST_OBJECT_LOCK (self);
  /* The replicas are built from these at READY->PAUSED; a change now would
   * silently apply only at the next start. Refused visibly, with the
   * selectors' wording (a g_warning, not only a debug line). */
  state = MAX (GST_STATE (self), GST_STATE_PENDING (self));
  if (state > GST_STATE_READY) {
    GST_OBJECT_UNLOCK (self);
    g_warning ("%s: property '%s' can only be changed in the NULL or READY "
        "state; the new value is ignored", GST_OBJECT_NAME (self),
        g_param_spec_get_name (pspec));
    return;
  }
  switch (prop_id) {
    case PROP_OPS:
      g_free (self->ops);
      self->ops = g_value_dup_string (value);
      break;
    case PROP_REPLICAS:
      self->replicas = g_value_get_uint (value);
      break;
    case PROP_WORK_PACKET_SIZE:
      self->packet_size = g_value_get_uint (value);
      break;
    case PROP_QUEUE_SIZE:
      self->queue_size = g_value_get_uint (value);
      break;
    case PROP_STAGE_NAME:
      g_free (self->stage_name);
      self->stage_name = g_value_dup_string (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_stage_bin_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstStageBin *self = GST_STAGE_BIN (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_OPS:
      g_value_set_string (value, self->ops);
      break;
    case PROP_REPLICAS:
      g_value_set_uint (value, self->replicas);
      break;
    case PROP_WORK_PACKET_SIZE:
      g_value_set_uint (value, self->packet_size);
      break;
    case PROP_QUEUE_SIZE:
      g_value_set_uint (value, self->queue_size);
      break;
    case PROP_STAGE_NAME:
      g_value_set_string (value, self->stage_name);
      break;
    case PROP_REPLICAS_USED:
      g_value_set_uint (value, self->replicas_used);
      break;
    case PROP_WORK_PACKET_SIZE_USED:
      g_value_set_uint (value, self->packet_size_used);
      break;
    case PROP_QUEUE_SIZE_USED:
      g_value_set_uint (value, self->queue_size_used);
      break;
    case PROP_DEVICE_GROUPS:
      g_value_set_string (value, self->device_groups);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_stage_bin_finalize (GObject * object)
{
  GstStageBin *self = GST_STAGE_BIN (object);

  g_free (self->ops);
  g_free (self->stage_name);
  g_free (self->device_groups);
  g_ptr_array_unref (self->queues);
  g_ptr_array_unref (self->children);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_stage_bin_class_init (GstStageBinClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBinClass *bin_class = GST_BIN_CLASS (klass);
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_READY;
  const GParamFlags ro = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  gobject_class->set_property = gst_stage_bin_set_property;
  gobject_class->get_property = gst_stage_bin_get_property;
  gobject_class->finalize = gst_stage_bin_finalize;

  g_object_class_install_property (gobject_class, PROP_OPS,
      g_param_spec_string ("ops", "Ops",
          "The chain of ops to replicate, in gst-launch syntax with one "
          "input and one output, e.g. \"videoconvert ! videoflip "
          "method=clockwise\"", DEFAULT_PROP_OPS, rw));
  g_object_class_install_property (gobject_class, PROP_REPLICAS,
      g_param_spec_uint ("replicas", "Replicas",
          "Copies of the chain running in parallel threads (Scanner's "
          "pipeline_instances_per_node); 0 = one per CPU core, or one per GPU "
          "when the ops use CUDA. Ops that depend on earlier frames "
          "(stagestride, stagerange, stagegather, videorate) need 1: more is "
          "refused, and 0 picks 1; 0 to 256, more is an error at start", 0,
          G_MAXUINT, DEFAULT_PROP_REPLICAS, rw));
  g_object_class_install_property (gobject_class, PROP_WORK_PACKET_SIZE,
      g_param_spec_uint ("work-packet-size", "Work packet size",
          "Consecutive frames sent to one replica before moving to the next; "
          "0 = estimate from the frame size at the first caps; 0 to 4096, "
          "more is an error at start", 0, G_MAXUINT,
          DEFAULT_PROP_WORK_PACKET_SIZE, rw));
  g_object_class_install_property (gobject_class, PROP_QUEUE_SIZE,
      g_param_spec_uint ("queue-size", "Queue size",
          "Work packets each replica queue holds (Scanner's "
          "queue_size_per_pipeline); 0 = estimate from frame size and "
          "memory; 0 to 1024, more is an error at start", 0, G_MAXUINT,
          DEFAULT_PROP_QUEUE_SIZE, rw));
  g_object_class_install_property (gobject_class, PROP_STAGE_NAME,
      g_param_spec_string ("stage-name", "Stage name",
          "Prefix of the replica thread names, \"<stage-name>[i]:Ops[y]\"",
          DEFAULT_PROP_STAGE_NAME, rw));
  g_object_class_install_property (gobject_class, PROP_REPLICAS_USED,
      g_param_spec_uint ("replicas-used", "Replicas used",
          "Replicas running (set in PAUSED)", 0, G_MAXUINT, 0, ro));
  g_object_class_install_property (gobject_class, PROP_WORK_PACKET_SIZE_USED,
      g_param_spec_uint ("work-packet-size-used", "Work packet size used",
          "Work packet size in use (set at the first caps)", 0, G_MAXUINT, 0,
          ro));
  g_object_class_install_property (gobject_class, PROP_QUEUE_SIZE_USED,
      g_param_spec_uint ("queue-size-used", "Queue size used",
          "Queue size in packets in use (set at the first caps)", 0,
          G_MAXUINT, 0, ro));
  g_object_class_install_property (gobject_class, PROP_DEVICE_GROUPS,
      g_param_spec_string ("device-groups", "Device groups",
          "How the ops were split into per-device stages (set in PAUSED), "
          "e.g. \"Ops[0]=cpu: videoflip0; Ops[1]=cuda: ...\"", NULL, ro));

  element_class->change_state = GST_DEBUG_FUNCPTR (gst_stage_bin_change_state);
  bin_class->handle_message = GST_DEBUG_FUNCPTR (gst_stage_bin_handle_message);

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "Replicated pipeline stage", "Generic/Bin",
      "Runs a chain of ops in parallel replicas, fed packets of frames "
      "round-robin, and restores input order (Scanner pipeline instances)",
      "gst-stages developers");
}

static void
gst_stage_bin_init (GstStageBin * self)
{
  self->ops = g_strdup (DEFAULT_PROP_OPS);
  self->replicas = DEFAULT_PROP_REPLICAS;
  self->packet_size = DEFAULT_PROP_WORK_PACKET_SIZE;
  self->queue_size = DEFAULT_PROP_QUEUE_SIZE;
  self->stage_name = g_strdup (DEFAULT_PROP_STAGE_NAME);
  self->queues = g_ptr_array_new_with_free_func (gst_object_unref);
  self->children = g_ptr_array_new ();

  /* Ghost pads exist from the start so gst-launch can link in NULL; their
   * targets are set when the replicas are built. */
  self->sinkpad = gst_ghost_pad_new_no_target_from_template ("sink",
      gst_element_class_get_pad_template (GST_ELEMENT_GET_CLASS (self),
          "sink"));
  self->srcpad = gst_ghost_pad_new_no_target_from_template ("src",
      gst_element_class_get_pad_template (GST_ELEMENT_GET_CLASS (self),
          "src"));
  gst_element_add_pad (GST_ELEMENT (self), self->sinkpad);
  gst_element_add_pad (GST_ELEMENT (self), self->srcpad);
}
