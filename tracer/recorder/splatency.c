/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* splatency: frames followed from their origin to the sinks. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include "splatency.h"
#include "sprecord.h"
#include "spregistry.h"
#include "sptrace.h"
#include <unistd.h>
#include "stats.h"

/* Frames an element may hold before the oldest is forgotten (an element
 * that drops frames, stagestride say, leaves theirs behind). */
#define SP_LATENCY_MAX_PENDING 512

/* What travels with a frame: its origin, and its path for the trace's
 * flow arrows (where it first entered an element, the thread of its last
 * flow point, its flow id once it crossed threads; 0: none yet). */
typedef struct
{
  guint64 origin;
  guint64 id;
  guint64 first_ts, first_tid, flow_tid;
  guint first_pid;
  gboolean unknown;             /* unmatched on its way: no origin */
  gboolean bytes;               /* a container's own bytes: no frame */
} Frame;

typedef struct
{
  GstClockTime rt;              /* its running time entering, or NONE */
  GstClockTime dur;             /* its duration, or 0 */
  guint64 rtp;                  /* an RTP packet's key (rtp_key), or 0 */
  guint64 in_ts;
  Frame f;
  /* its first memory (identity only) and that memory's size: a muxer
   * passes the memory itself on into its file */
  GstMemory *mem;
  gsize mem_size;
} Entry;

typedef struct
{
  gpointer element;             /* identity only; NULL once destroyed */
  gpointer top;                 /* its top-level pipeline, identity only */
  /* As the summary spells them: from the recorder's table of names
   * (spnames.h), held until the recorder is freed, as every LatElem is. */
  const gchar *name, *pipeline;
  gboolean is_sink, sync;
  gboolean is_queue;            /* its time through is all dwell */
  gboolean live_source;         /* its PTS is a capture time */
  GArray *pending;              /* Entry, oldest first */
  gboolean had_input;
  gboolean frames_in;           /* an input in a time segment: frames */
  Frame last;                   /* the frame it last passed on */
  gboolean pushed;              /* it has pushed, last at last_push_ts */
  guint64 last_push_ts;
  StageStats through;           /* ms from entering it to leaving it */
  StageStats e2e, render;       /* sinks: ms from the origin */
  /* Sinks: the same times by bucket (ops/stats.h) and their count and sum
   * (ns), cumulative, for interval windows (SpLatencySink). */
  guint64 *e2e_hist;
  guint64 e2e_n, e2e_sum;
  guint64 unmatched;            /* frames out it could not match, or (a
                                 * sink) frames in of no known origin */
  guint64 sink_origin;
  gboolean sink_open;
  gboolean reported, live;
  GstClockTime rmin, rmax;
} LatElem;

struct _SpLatency
{
  SpRecorder *r;                /* its trace and thread ids, for flows */
  guint64 next_id;              /* atomic */
  GMutex lock;
  GHashTable *live;             /* GstElement* -> LatElem* */
  GPtrArray *all;               /* every LatElem, destroyed ones too */
};

/* The buffer pushed last on this thread and its origin: the chain that
 * the push calls (same thread) takes it, and clears it. */
static __thread gpointer tls_buf;
static __thread Frame tls_frame;

static void
lat_elem_free (gpointer data)
{
  LatElem *le = data;

  g_array_free (le->pending, TRUE);
  g_free (le->e2e_hist);
  g_free (le);
}

static void
lat_elem_clear_stats (LatElem * le)
{
  stage_stats_init (&le->through);
  stage_stats_init (&le->e2e);
  stage_stats_init (&le->render);
  if (le->e2e_hist)
    memset (le->e2e_hist, 0, STAGE_HIST_BUCKETS * sizeof (guint64));
  le->e2e_n = le->e2e_sum = 0;
  le->unmatched = 0;
}

SpLatency *
sp_latency_new (gpointer trace_from)
{
  SpLatency *l = g_new0 (SpLatency, 1);

  l->r = trace_from;
  g_mutex_init (&l->lock);
  l->live = g_hash_table_new (NULL, NULL);
  l->all = g_ptr_array_new_with_free_func (lat_elem_free);
  return l;
}

static const SpLatencyOps latency_ops = {
  sp_latency_element_destroyed, sp_latency_reset, sp_latency_free
};

SpLatency *
sp_recorder_enable_latency (SpRecorder * r)
{
  g_mutex_lock (&r->lock);
  if (!r->latency) {
    r->latency_ops = &latency_ops;
    g_atomic_pointer_set (&r->latency, sp_latency_new (r));
  }
  g_mutex_unlock (&r->lock);
  return r->latency;
}

void
sp_latency_free (SpLatency * l)
{
  if (!l)
    return;
  g_hash_table_destroy (l->live);
  g_ptr_array_free (l->all, TRUE);
  g_mutex_clear (&l->lock);
  g_free (l);
}

/* l->lock held. */
static LatElem *
lat_elem_get (SpLatency * l, GstElement * e)
{
  LatElem *le = g_hash_table_lookup (l->live, e);
  GstObject *top = GST_OBJECT_CAST (e);

  if (le)
    return le;
  le = g_new0 (LatElem, 1);
  le->element = e;
  while (GST_OBJECT_PARENT (top))
    top = GST_OBJECT_PARENT (top);
  le->top = top;
  /* Named as the registry names them, under its lock, which guards its
   * table of names (l->lock comes first: docs/architecture.md, "Locks"). */
  if (l->r)
    g_mutex_lock (&l->r->lock);
  le->name = sp_element_path (l->r, e);
  le->pipeline = sp_display_name (l->r, GST_OBJECT_NAME (top) ?
      GST_OBJECT_NAME (top) : "(unnamed)");
  if (l->r)
    g_mutex_unlock (&l->r->lock);
  /* by the flag sink base classes set: a push-mode demuxer first seen at
   * its first chain has no source pad yet */
  le->is_sink = GST_OBJECT_FLAG_IS_SET (e, GST_ELEMENT_FLAG_SINK);
  le->is_queue = sp_has_property (e, "max-size-buffers")
      && sp_has_property (e, "current-level-buffers");
  if (GST_OBJECT_FLAG_IS_SET (e, GST_ELEMENT_FLAG_SOURCE)
      && sp_has_property (e, "is-live"))
    g_object_get (e, "is-live", &le->live_source, NULL);
  if (le->is_sink && sp_has_property (e, "sync"))
    g_object_get (e, "sync", &le->sync, NULL);
  le->pending = g_array_new (FALSE, FALSE, sizeof (Entry));
  lat_elem_clear_stats (le);
  g_hash_table_insert (l->live, e, le);
  g_ptr_array_add (l->all, le);
  return le;
}

/* An RTP packet's identity across elements that re-stamp it (a jitter
 * buffer puts packets on its own timeline: no running time matches), its
 * SSRC and sequence number; 0 for a buffer on a pad whose caps are not
 * RTP, or too short to be a packet. A pad's caps are looked at once per
 * buffer only where latency=true. */
static guint64
rtp_key (GstPad * pad, GstBuffer * buf)
{
  GstCaps *caps;
  gboolean rtp = FALSE;
  guint8 h[12];

  if (gst_buffer_get_size (buf) < 12)
    return 0;
  caps = gst_pad_get_current_caps (pad);
  if (caps) {
    rtp = gst_caps_get_size (caps) > 0 && gst_structure_has_name
        (gst_caps_get_structure (caps, 0), "application/x-rtp");
    gst_caps_unref (caps);
  }
  if (!rtp || gst_buffer_extract (buf, 0, h, 12) != 12 || (h[0] >> 6) != 2)
    return 0;
  return G_GUINT64_CONSTANT (1) << 48 | (guint64) GST_READ_UINT32_BE (h + 8)
      << 16 | GST_READ_UINT16_BE (h + 2);
}

static gdouble
ms (guint64 later, guint64 earlier)
{
  return later > earlier ? (later - earlier) / 1e6 : 0.0;
}

/* The running time of `buf` on `pad`: its PTS through the pad's segment
 * (and the pad's offset), which an element keeps across its input and
 * output where it shifts its output timestamps (x264enc's 1000 hours, an
 * encoder's lookahead): raw PTS never match there. NONE without a PTS or
 * outside the segment, and where the pad's segment is not in time, which
 * *bytes then says (a muxer's file: mp4mux puts its PTS on its own time
 * line, shifted by the B-frames' delay); the raw PTS where the pad has no
 * segment. */
static GstClockTime
running_time (GstPad * pad, GstBuffer * buf, gboolean * bytes)
{
  GstClockTime pts = GST_BUFFER_PTS (buf), rt = pts;
  GstEvent *ev;
  const GstSegment *seg;

  ev = gst_pad_get_sticky_event (pad, GST_EVENT_SEGMENT, 0);
  *bytes = FALSE;
  if (ev) {
    gst_event_parse_segment (ev, &seg);
    *bytes = seg->format != GST_FORMAT_TIME;
    if (!*bytes && GST_CLOCK_TIME_IS_VALID (pts))
      rt = gst_segment_to_running_time (seg, GST_FORMAT_TIME, pts);
    gst_event_unref (ev);
  }
  if (*bytes || !GST_CLOCK_TIME_IS_VALID (pts))
    return GST_CLOCK_TIME_NONE;
  if (GST_CLOCK_TIME_IS_VALID (rt)) {
    gint64 off = gst_pad_get_offset (pad);

    rt = off >= 0 || (guint64) - off <= rt ? rt + off : GST_CLOCK_TIME_NONE;
  }
  return rt;
}

/* Whether spans [a, a + da) and [b, b + db) share running time; a span
 * of no duration is its start. */
static inline gboolean
spans_overlap (GstClockTime a, GstClockTime da, GstClockTime b,
    GstClockTime db)
{
  return (a < b + MAX (db, 1)) && (b < a + MAX (da, 1));
}

/* `buf`'s duration, 0 where it has none. */
static inline GstClockTime
buffer_duration (GstBuffer * buf)
{
  return GST_BUFFER_DURATION_IS_VALID (buf) ? GST_BUFFER_DURATION (buf) : 0;
}

/* The frame `buf` (running time `rt`, duration `dur`) leaving `le` at
 * `ts`: the one that entered with the same running time (a decoder
 * putting frames back in order, an encoder with lookahead); else, for an
 * element that cuts or stamps its output on its own grid (an audio mixer,
 * videorate, an audio encoder re-chunking), the earliest waiting frame
 * whose span (running time to running time plus duration) overlaps the
 * output's: the first input whose data it carries. Each frame is taken
 * once. Where the element's input had no timestamps (a parser of a
 * file's bytes), the oldest. Where it had some and none matches (a frame
 * videorate repeats, already taken), no other frame is taken for it: it
 * is counted as unmatched and its origin is unknown. *first: the frame
 * starts here. */
static Frame
take_frame (LatElem * le, GstClockTime rt, GstClockTime dur, guint64 rtp,
    guint64 ts, gboolean * first)
{
  gint at = -1, span = -1;
  gboolean timed = FALSE;
  Entry ent;

  if (!le->had_input) {
    /* a source, or an element that pulled its input (a demuxer) */
    Frame f = { ts, 0, 0, 0, 0, 0 };

    *first = TRUE;
    return f;
  }
  /* An RTP packet out: the packet in with its SSRC and sequence number
   * (a jitter buffer re-stamps, reorders and drops); else by running
   * time, then by span. */
  for (guint i = 0; rtp && i < le->pending->len && at < 0; i++)
    if (g_array_index (le->pending, Entry, i).rtp == rtp)
      at = (gint) i;
  for (guint i = 0; i < le->pending->len && at < 0; i++) {
    const Entry *e = &g_array_index (le->pending, Entry, i);

    timed |= GST_CLOCK_TIME_IS_VALID (e->rt);
    if (!GST_CLOCK_TIME_IS_VALID (rt) || !GST_CLOCK_TIME_IS_VALID (e->rt))
      continue;
    if (e->rt == rt)
      at = (gint) i;
    else if (span < 0 && spans_overlap (e->rt, e->dur, rt, dur))
      span = (gint) i;
  }
  if (at < 0)
    at = span;
  if (at < 0) {
    /* Nothing waiting: a tee's next branch, or one of several buffers made
     * of one input: the frame it last passed on. */
    if (le->pending->len == 0)
      return le->last;
    if (timed && GST_CLOCK_TIME_IS_VALID (rt)) {
      Frame f = le->last;

      le->unmatched++;
      f.unknown = TRUE;
      f.origin = 0;
      return f;
    }
    /* An element that makes one output of several inputs (a parser of a
     * file's chunks): what entered before its previous push went into
     * that output. Not so a queue: all it holds is waiting, in order. */
    if (!le->is_queue && le->pushed)
      while (le->pending->len > 1
          && g_array_index (le->pending, Entry, 0).in_ts < le->last_push_ts)
        g_array_remove_index (le->pending, 0);
    at = 0;
  }
  ent = g_array_index (le->pending, Entry, at);
  g_array_remove_index (le->pending, at);
  stage_stats_add (&le->through, ms (ts, ent.in_ts));
  return ent.f;
}

/* `buf` leaving `le` at `ts` on a pad whose segment is not in time (a
 * muxer's file, where no running time is a frame's): the frame whose
 * entry holds one of its memories, since muxers that write a frame's data
 * (mp4mux, qtmux) push the input's own GstMemory. The newest such entry
 * of this element, with the same size: a memory's address is reused only
 * once it is freed, so an older entry at that address is one the element
 * dropped, and the size guards against a new buffer (a header) at a
 * dropped one's address. Where none holds one and the element's input
 * was frames, `buf` is the container's own bytes (a header, the moov):
 * no frame, taking no entry and not unmatched; sinks count nothing for
 * it. FALSE: take_frame's rules (no input yet, or bytes in and out). */
static gboolean
take_bytes (LatElem * le, GstBuffer * buf, guint64 ts, Frame * f)
{
  guint n = gst_buffer_n_memory (buf);

  if (!le->had_input)
    return FALSE;
  for (gint i = (gint) le->pending->len - 1; i >= 0; i--) {
    Entry *ent = &g_array_index (le->pending, Entry, i);

    for (guint m = 0; ent->mem && m < n; m++) {
      GstMemory *mem = gst_buffer_peek_memory (buf, m);

      if (mem == ent->mem && mem->size == ent->mem_size) {
        *f = ent->f;
        stage_stats_add (&le->through, ms (ts, ent->in_ts));
        g_array_remove_index (le->pending, i);
        return TRUE;
      }
    }
  }
  if (!le->frames_in)
    return FALSE;
  memset (f, 0, sizeof (*f));
  f->bytes = TRUE;
  return TRUE;
}

/* How long ago a live source captured `buf`: its PTS is the running time
 * of the capture, on the pipeline clock. 0 where that is unknown or not
 * plausible (over 10 s). */
static guint64
capture_age (GstElement * e, GstBuffer * buf)
{
  GstClock *clock = gst_element_get_clock (e);
  GstClockTime now, capture;
  guint64 age = 0;

  if (!clock)
    return 0;
  now = gst_clock_get_time (clock);
  capture = gst_element_get_base_time (e) + GST_BUFFER_PTS (buf);
  if (GST_CLOCK_TIME_IS_VALID (now) && now > capture
      && now - capture < 10 * GST_SECOND)
    age = now - capture;
  gst_object_unref (clock);
  return age;
}

/* How long ago the capture a reference timestamp meta stamps in wall-clock
 * time (timestamp/x-unix, or timestamp/x-ntp: seconds since 1900) was, by
 * the wall clock now; FALSE where the buffer has none, or an implausible
 * one (in the future, or over 10 s ago). */
static gboolean
reference_age (GstBuffer * buf, guint64 * age)
{
  gpointer state = NULL;
  GstMeta *m;

  while ((m = gst_buffer_iterate_meta_filtered (buf, &state,
              GST_REFERENCE_TIMESTAMP_META_API_TYPE))) {
    GstReferenceTimestampMeta *r = (GstReferenceTimestampMeta *) m;
    const GstStructure *s = r->reference && gst_caps_get_size (r->reference)
        ? gst_caps_get_structure (r->reference, 0) : NULL;
    guint64 now = (guint64) g_get_real_time () * 1000, cap;

    if (!s || !GST_CLOCK_TIME_IS_VALID (r->timestamp))
      continue;
    if (gst_structure_has_name (s, "timestamp/x-unix"))
      cap = r->timestamp;
    else if (gst_structure_has_name (s, "timestamp/x-ntp")
        && r->timestamp >= G_GUINT64_CONSTANT (2208988800) * GST_SECOND)
      cap = r->timestamp - G_GUINT64_CONSTANT (2208988800) * GST_SECOND;
    else
      continue;
    if (cap <= now && now - cap < 10 * GST_SECOND) {
      *age = now - cap;
      return TRUE;
    }
  }
  return FALSE;
}

void
sp_latency_push (SpLatency * l, guint64 ts, GstPad * pad, GstBuffer * buf)
{
  GstElement *e = sp_pad_element (pad);
  LatElem *le;
  Frame f;
  gboolean first = FALSE, live, bytes;
  GstClockTime rt;
  guint64 rtp;

  if (!e || !buf)
    return;
  rt = running_time (pad, buf, &bytes);
  rtp = rtp_key (pad, buf);
  g_mutex_lock (&l->lock);
  le = lat_elem_get (l, e);
  if (!bytes || !take_bytes (le, buf, ts, &f))
    f = take_frame (le, rt, buffer_duration (buf), rtp, ts, &first);
  live = le->live_source;
  le->pushed = TRUE;
  le->last_push_ts = ts;
  le->last = f;
  /* what pushes is no sink (a demuxer seen first at its chain, before it
   * added its source pads) */
  le->is_sink = FALSE;
  g_mutex_unlock (&l->lock);
  /* A frame stamped with its capture time in wall-clock time, or from a
   * live source, began at its capture, before the push (outside the lock:
   * the clock has its own). */
  if (first) {
    guint64 age = 0;

    if (!reference_age (buf, &age) && live && GST_BUFFER_PTS_IS_VALID (buf))
      age = capture_age (e, buf);
    if (age > 0) {
      f.origin = ts - MIN (age, ts);
      g_mutex_lock (&l->lock);
      if (le->last_push_ts == ts)
        le->last.origin = f.origin;
      g_mutex_unlock (&l->lock);
    }
  }
  tls_buf = buf;
  tls_frame = f;
}

/* The trace's arrow for frame `f` entering an element at `ts` on this
 * thread: where it first entered one, a step where it changed threads, the
 * end at a sink; nothing for a frame that stays on one thread. */
static void
trace_flow (SpLatency * l, Frame * f, guint64 ts, gboolean sink)
{
  SpTrace *t = l->r ? get_trace (l->r) : NULL;
  guint pid;
  guint64 tid;

  if (!t || !sp_record_thread_ids (l->r, &pid, &tid))
    return;
  if (f->first_ts == 0) {
    f->first_ts = ts;
    f->first_pid = pid;
    f->first_tid = f->flow_tid = tid;
    return;
  }
  if (tid == f->flow_tid && !(sink && f->id))
    return;
  if (f->id == 0) {
    /* unique in a trace that merges several processes', and below 2^53:
     * viewers read JSON numbers as doubles */
    f->id = (((guint64) getpid () & 0x3fffff) << 31)
        | (__atomic_add_fetch (&l->next_id, 1, __ATOMIC_RELAXED)
        & G_GUINT64_CONSTANT (0x7fffffff));
    sp_trace_flow (t, f->first_pid, f->first_tid, f->id, f->first_ts,
        SP_FLOW_START);
  }
  sp_trace_flow (t, pid, tid, f->id, ts, sink ? SP_FLOW_END : SP_FLOW_STEP);
  f->flow_tid = tid;
}

/* A sink's end-to-end time `ns`, for windows; l->lock held. */
static void
sink_hist_add (LatElem * le, guint64 ns)
{
  if (!le->e2e_hist)
    le->e2e_hist = g_new0 (guint64, STAGE_HIST_BUCKETS);
  le->e2e_hist[stage_hist_bucket (ns)]++;
  le->e2e_n++;
  le->e2e_sum += ns;
}

void
sp_latency_chain (SpLatency * l, guint64 ts, GstPad * pad, GstBuffer * buf)
{
  GstElement *e = sp_pad_element (pad);
  LatElem *le;
  Frame f;
  GstClockTime rt;
  guint64 rtp;
  gboolean bytes;

  /* The frame this thread pushed last and no chain took yet: a push runs
   * the peer's chain on the pushing thread, so this chain is that push's,
   * even where a pad probe in between replaced the buffer (stagesrc
   * stamps its decoder's frames on a writable copy). NULL after a chain
   * took it: the buffers of a list after its first, which the default
   * chain-list function hands on one by one, are the same frame. */
  if (!e || !buf || !tls_buf)
    return;
  f = tls_frame;
  tls_buf = NULL;
  rt = running_time (pad, buf, &bytes);
  rtp = rtp_key (pad, buf);
  g_mutex_lock (&l->lock);
  le = lat_elem_get (l, e);
  le->had_input = TRUE;
  le->frames_in |= !bytes;
  if (!f.bytes)
    trace_flow (l, &f, ts, le->is_sink);
  if (le->is_sink && f.bytes) {
    /* a container's own bytes (take_bytes): no frame */
  } else if (le->is_sink && f.unknown) {
    /* no latency drawn from a frame of no known origin */
    le->unmatched++;
  } else if (le->is_sink) {
    stage_stats_add (&le->e2e, ms (ts, f.origin));
    sink_hist_add (le, ts > f.origin ? ts - f.origin : 0);
    le->sink_origin = f.origin;
    le->sink_open = TRUE;
  } else {
    Entry ent = { rt, buffer_duration (buf), rtp, ts, f };

    if (gst_buffer_n_memory (buf) > 0) {
      ent.mem = gst_buffer_peek_memory (buf, 0);
      ent.mem_size = ent.mem->size;
    }
    if (le->pending->len >= SP_LATENCY_MAX_PENDING)
      g_array_remove_index (le->pending, 0);
    g_array_append_val (le->pending, ent);
    le->last = f;
  }
  g_mutex_unlock (&l->lock);
}

void
sp_latency_chain_post (SpLatency * l, guint64 ts, GstPad * pad)
{
  GstElement *e = sp_pad_element (pad);
  LatElem *le;

  if (!e)
    return;
  g_mutex_lock (&l->lock);
  le = g_hash_table_lookup (l->live, e);
  if (le && le->is_sink && le->sink_open) {
    if (le->sync)
      stage_stats_add (&le->render, ms (ts, le->sink_origin));
    le->sink_open = FALSE;
  }
  g_mutex_unlock (&l->lock);
}

void
sp_latency_query (SpLatency * l, GstElement * element, GstQuery * query,
    gboolean res)
{
  gboolean live;
  GstClockTime min, max;
  LatElem *le;

  if (!res || GST_QUERY_TYPE (query) != GST_QUERY_LATENCY)
    return;
  gst_query_parse_latency (query, &live, &min, &max);
  g_mutex_lock (&l->lock);
  le = lat_elem_get (l, element);
  le->reported = TRUE;
  le->live = live;
  le->rmin = min;
  le->rmax = max;
  g_mutex_unlock (&l->lock);
}

void
sp_latency_element_destroyed (SpLatency * l, gpointer element)
{
  LatElem *le;

  g_mutex_lock (&l->lock);
  le = g_hash_table_lookup (l->live, element);
  if (le) {
    /* its figures stay for the summary; the address may be reused */
    le->element = NULL;
    g_array_set_size (le->pending, 0);
    g_hash_table_remove (l->live, element);
  }
  /* a later pipeline at the same address is another */
  for (guint i = 0; i < l->all->len; i++) {
    LatElem *o = g_ptr_array_index (l->all, i);
    if (o->top == element)
      o->top = NULL;
  }
  g_mutex_unlock (&l->lock);
}

void
sp_latency_reset (SpLatency * l)
{
  g_mutex_lock (&l->lock);
  for (guint i = 0; i < l->all->len; i++)
    lat_elem_clear_stats (g_ptr_array_index (l->all, i));
  g_mutex_unlock (&l->lock);
}

GArray *
sp_latency_stats (SpLatency * l, gpointer pipeline)
{
  GArray *out = g_array_new (FALSE, TRUE, sizeof (SpLatencyStat));

  g_mutex_lock (&l->lock);
  for (guint i = 0; i < l->all->len; i++) {
    LatElem *le = g_ptr_array_index (l->all, i);
    SpLatencyStat st = { 0 };

    if (pipeline && pipeline != SP_RECORDER_PENDING && pipeline != le->top)
      continue;
    if (le->is_sink ? le->e2e.count == 0 && le->unmatched == 0
        : le->through.count == 0 && le->unmatched == 0)
      continue;
    st.name = le->name;
    st.pipeline = le->pipeline;
    st.is_sink = le->is_sink;
    st.is_queue = le->is_queue;
    st.through = le->through;
    st.e2e = le->e2e;
    st.render = le->render;
    st.unmatched = le->unmatched;
    st.reported = le->reported;
    st.live = le->live;
    st.rmin = le->rmin;
    st.rmax = le->rmax;
    g_array_append_val (out, st);
  }
  g_mutex_unlock (&l->lock);
  return out;
}

void
sp_latency_sinks (SpLatency * l, gpointer pipeline, GArray * out)
{
  g_mutex_lock (&l->lock);
  for (guint i = 0; i < l->all->len; i++) {
    LatElem *le = g_ptr_array_index (l->all, i);
    SpLatencySink s;

    if (!le->is_sink || !le->e2e_hist || le->top != pipeline)
      continue;
    s.name = le->name;
    s.n = le->e2e_n;
    s.sum_ns = le->e2e_sum;
    memcpy (s.hist, le->e2e_hist, sizeof (s.hist));
    g_array_append_val (out, s);
  }
  g_mutex_unlock (&l->lock);
}
