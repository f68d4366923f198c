/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spmeta: wall-clock start and element links as trace metadata events. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "spmeta.h"
#include "jsontext.h"

typedef struct
{
  gchar *src, *src_pad, *sink, *sink_pad;
} SpLinkRec;

typedef struct
{
  GstObject *top;               /* key only, never dereferenced once gone */
  GArray *links;                /* SpLinkRec */
  gboolean started;
} SpPipeLinks;

struct _SpMeta
{
  GMutex lock;
  gboolean have_base;
  gint64 base_ns;               /* monotonic time of trace ts 0 */
  GPtrArray *pipes;             /* SpPipeLinks */
};

static void
link_rec_clear (gpointer p)
{
  SpLinkRec *l = p;

  g_free (l->src);
  g_free (l->src_pad);
  g_free (l->sink);
  g_free (l->sink_pad);
}

static void
pipe_links_free (gpointer p)
{
  SpPipeLinks *pl = p;

  g_array_free (pl->links, TRUE);
  g_free (pl);
}

SpMeta *
sp_meta_new (void)
{
  SpMeta *m = g_new0 (SpMeta, 1);

  g_mutex_init (&m->lock);
  m->pipes = g_ptr_array_new_with_free_func (pipe_links_free);
  return m;
}

void
sp_meta_free (SpMeta * m)
{
  if (!m)
    return;
  g_ptr_array_free (m->pipes, TRUE);
  g_mutex_clear (&m->lock);
  g_free (m);
}

/* Hook timestamps count from gst_init() on the monotonic clock
 * (gst_util_get_timestamp), whose origin GStreamer keeps private: one
 * hook's ts against a reading taken in it gives that origin, to within the
 * dispatch of the hook. */
static void
write_clock_locked (SpMeta * m, SpTrace * trace)
{
  gint64 now_mono = (gint64) gst_util_get_timestamp ();
  gint64 now_wall = g_get_real_time ();
  gint64 ts_ns = now_mono - m->base_ns;
  gchar *ev;

  if (sp_trace_has_clock (trace))
    return;
  ev = g_strdup_printf ("{\"name\":\"stageprof_start\",\"ph\":\"M\",\"pid\":0,"
      "\"tid\":0,\"args\":{\"wall_clock_us\":%" G_GINT64_FORMAT
      ",\"ts_us\":%" G_GINT64_FORMAT ".%03d}}\n", now_wall, ts_ns / 1000,
      (gint) (ts_ns % 1000));
  sp_trace_metadata (trace, ev, TRUE);
  g_free (ev);
}

void
sp_meta_clock (SpMeta * m, SpTrace * trace, guint64 ts)
{
  g_mutex_lock (&m->lock);
  if (!m->have_base) {
    m->base_ns = (gint64) gst_util_get_timestamp () - (gint64) ts;
    m->have_base = TRUE;
  }
  if (trace)
    write_clock_locked (m, trace);
  g_mutex_unlock (&m->lock);
}

/* The element a pad belongs to: a ghost pad's internal proxy pad belongs to
 * the ghost pad, whose parent is the bin. */
static GstObject *
pad_element (GstPad * pad)
{
  GstObject *parent = GST_OBJECT_PARENT (pad);

  if (parent && GST_IS_PAD (parent))
    parent = GST_OBJECT_PARENT (parent);
  return parent && GST_IS_ELEMENT (parent) ? parent : NULL;
}

/* The element's path below its top-level pipeline: "conv", "bin/conv". */
static gchar *
element_path (GstObject * e, GstObject ** top)
{
  GString *s = g_string_new (NULL);
  GstObject *o;

  for (o = e; GST_OBJECT_PARENT (o); o = GST_OBJECT_PARENT (o)) {
    if (s->len)
      g_string_prepend_c (s, '/');
    g_string_prepend (s, GST_OBJECT_NAME (o) ? GST_OBJECT_NAME (o) : "?");
  }
  *top = o;
  if (s->len == 0)              /* a lone element is its own top */
    g_string_append (s, GST_OBJECT_NAME (o) ? GST_OBJECT_NAME (o) : "?");
  return g_string_free (s, FALSE);
}

static SpPipeLinks *
pipe_links_locked (SpMeta * m, GstObject * top, gboolean create)
{
  SpPipeLinks *pl;
  guint i;

  for (i = 0; i < m->pipes->len; i++) {
    pl = g_ptr_array_index (m->pipes, i);
    if (pl->top == top)
      return pl;
  }
  if (!create)
    return NULL;
  pl = g_new0 (SpPipeLinks, 1);
  pl->top = top;
  pl->links = g_array_new (FALSE, TRUE, sizeof (SpLinkRec));
  g_array_set_clear_func (pl->links, link_rec_clear);
  g_ptr_array_add (m->pipes, pl);
  return pl;
}

static void
append_str (GString * ev, const gchar * key, const gchar * val)
{
  g_string_append_printf (ev, "%s\"%s\":\"", ev->str[ev->len - 1] == '{' ?
      "" : ",", key);
  stage_json_escape (ev, val);
  g_string_append_c (ev, '"');
}

static void
write_link (SpTrace * trace, const gchar * pipeline, const SpLinkRec * l)
{
  GString *ev = g_string_new ("{\"name\":\"stageprof_link\",\"ph\":\"M\","
      "\"pid\":0,\"tid\":0,\"args\":{");

  append_str (ev, "pipeline", pipeline);
  append_str (ev, "src", l->src);
  append_str (ev, "src_pad", l->src_pad);
  append_str (ev, "sink", l->sink);
  append_str (ev, "sink_pad", l->sink_pad);
  g_string_append (ev, "}}\n");
  sp_trace_metadata (trace, ev->str, FALSE);
  g_string_free (ev, TRUE);
}

void
sp_meta_pad_linked (SpMeta * m, SpTrace * trace, GstPad * src, GstPad * sink)
{
  GstObject *se = pad_element (src), *ke = pad_element (sink), *top, *top2;
  SpLinkRec l;
  SpPipeLinks *pl;

  if (!se || !ke || se == ke)
    return;
  l.src = element_path (se, &top);
  l.sink = element_path (ke, &top2);
  l.src_pad = g_strdup (GST_OBJECT_NAME (src));
  l.sink_pad = g_strdup (GST_OBJECT_NAME (sink));
  g_mutex_lock (&m->lock);
  pl = top == top2 ? pipe_links_locked (m, top, TRUE) : NULL;
  if (pl) {
    g_array_append_val (pl->links, l);
    if (pl->started && trace)
      write_link (trace, GST_OBJECT_NAME (top), &l);
  } else {
    link_rec_clear (&l);
  }
  g_mutex_unlock (&m->lock);
}

void
sp_meta_pipeline_started (SpMeta * m, SpTrace * trace, GstElement * top)
{
  SpPipeLinks *pl;
  guint i;

  g_mutex_lock (&m->lock);
  pl = pipe_links_locked (m, GST_OBJECT_CAST (top), TRUE);
  if (!pl->started && trace)
    for (i = 0; i < pl->links->len; i++)
      write_link (trace, GST_OBJECT_NAME (top),
          &g_array_index (pl->links, SpLinkRec, i));
  pl->started = TRUE;
  g_mutex_unlock (&m->lock);
}

void
sp_meta_trace_set (SpMeta * m, SpTrace * trace)
{
  guint i, j;

  if (!trace)
    return;
  g_mutex_lock (&m->lock);
  if (m->have_base)
    write_clock_locked (m, trace);
  for (i = 0; i < m->pipes->len; i++) {
    SpPipeLinks *pl = g_ptr_array_index (m->pipes, i);
    if (!pl->started)
      continue;
    for (j = 0; j < pl->links->len; j++)
      write_link (trace, GST_OBJECT_NAME (pl->top),
          &g_array_index (pl->links, SpLinkRec, j));
  }
  g_mutex_unlock (&m->lock);
}

void
sp_meta_object_destroyed (SpMeta * m, gpointer object)
{
  guint i;

  g_mutex_lock (&m->lock);
  for (i = 0; i < m->pipes->len; i++) {
    SpPipeLinks *pl = g_ptr_array_index (m->pipes, i);
    if (pl->top == object) {
      g_ptr_array_remove_index_fast (m->pipes, i);
      break;
    }
  }
  g_mutex_unlock (&m->lock);
}
