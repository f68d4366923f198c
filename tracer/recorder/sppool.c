/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sppool: buffer pools, their buffers out, waits and holders. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include "sppool.h"
#include "sprecorder.h"

/* An element that held buffers: named when first seen, so that a row can
 * name it after it went. */
typedef struct
{
  gpointer element;             /* identity only; NULL once destroyed */
  gchar *name;
  gboolean app;                 /* an appsink: the application holds them */
} Holder;

typedef struct
{
  gpointer pool;                /* identity only; NULL once finalized */
  gpointer top;                 /* its user's top-level pipeline */
  gchar *name, *pipeline, *user, *proposer, *allocator;
  GstPad *out_pad;              /* identity: where its user pushes them */
  guint size, min, max;
  guint64 handed_out;
  guint in_use, max_in_use;
  guint64 empty_count;
  guint64 empty_since;          /* 0: not empty */
  gboolean sampled;             /* holders counted for this empty spell */
  guint64 last_return;          /* the user's last push returned */
  gboolean in_push, eos;
  guint64 wait_ns;
  guint64 first_ts, last_ts;
  GHashTable *held;             /* Holder* -> buffers, summed over samples */
  guint64 samples;
} PoolRec;

typedef struct
{
  PoolRec *pool;
  Holder *holder;
} BufRec;

/* Memory an element allocated: the memories (their root, for shares of
 * another) that left it first, and of those the bytes still alive. */
typedef struct
{
  gpointer element;             /* identity only; NULL once destroyed */
  gpointer top;
  gchar *name, *pipeline;
  guint64 mems, bytes;          /* allocated */
  guint64 pooled, pooled_bytes; /* pool buffers it handed out */
  gint64 live, peak;            /* bytes of its memories alive */
} ElemMem;

typedef struct
{
  gpointer top;
  gint64 live, peak;
} PipeMem;

typedef struct
{
  ElemMem *by;
  PipeMem *pipe;
  gsize size;
} MemRec;

struct _SpPools
{
  GMutex lock;
  GHashTable *by_pool;          /* live GstBufferPool* -> PoolRec* */
  GHashTable *by_pad;           /* out_pad of a live pool -> PoolRec* */
  GPtrArray *all;               /* every PoolRec, finalized pools too */
  GHashTable *bufs;             /* GstBuffer* out -> BufRec* */
  GHashTable *holders;          /* live GstElement* -> Holder* */
  GPtrArray *all_holders;
  GHashTable *proposals;        /* GstBufferPool* -> proposer's name */
  GHashTable *mems;             /* GstMemory* alive, seen -> MemRec* */
  GHashTable *elem_mems;        /* live GstElement* -> ElemMem* */
  GPtrArray *all_elem_mems;
  GHashTable *pipe_mems;        /* top-level object -> PipeMem* */
};

static void
holder_free (gpointer data)
{
  Holder *h = data;

  g_free (h->name);
  g_free (h);
}

static void
pool_rec_free (gpointer data)
{
  PoolRec *rec = data;

  g_free (rec->name);
  g_free (rec->pipeline);
  g_free (rec->user);
  g_free (rec->proposer);
  g_free (rec->allocator);
  g_hash_table_destroy (rec->held);
  g_free (rec);
}

static void
elem_mem_free (gpointer data)
{
  ElemMem *m = data;

  g_free (m->name);
  g_free (m->pipeline);
  g_free (m);
}

static SpPools *
sp_pools_new (void)
{
  SpPools *p = g_new0 (SpPools, 1);

  g_mutex_init (&p->lock);
  p->by_pool = g_hash_table_new (NULL, NULL);
  p->by_pad = g_hash_table_new (NULL, NULL);
  p->all = g_ptr_array_new_with_free_func (pool_rec_free);
  p->bufs = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  p->holders = g_hash_table_new (NULL, NULL);
  p->all_holders = g_ptr_array_new_with_free_func (holder_free);
  p->proposals = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  p->mems = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  p->elem_mems = g_hash_table_new (NULL, NULL);
  p->all_elem_mems = g_ptr_array_new_with_free_func (elem_mem_free);
  p->pipe_mems = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  return p;
}

SpPools *
sp_recorder_enable_pools (SpRecorder * r)
{
  g_mutex_lock (&r->lock);
  if (!r->pools)
    g_atomic_pointer_set (&r->pools, sp_pools_new ());
  g_mutex_unlock (&r->lock);
  return r->pools;
}

SpPools *
sp_recorder_pools (SpRecorder * r)
{
  return g_atomic_pointer_get (&r->pools);
}

void
sp_pools_free (SpPools * p)
{
  if (!p)
    return;
  g_hash_table_destroy (p->by_pool);
  g_hash_table_destroy (p->by_pad);
  g_hash_table_destroy (p->bufs);
  g_hash_table_destroy (p->holders);
  g_hash_table_destroy (p->proposals);
  g_hash_table_destroy (p->mems);
  g_hash_table_destroy (p->elem_mems);
  g_hash_table_destroy (p->pipe_mems);
  g_ptr_array_free (p->all_elem_mems, TRUE);
  g_ptr_array_free (p->all, TRUE);
  g_ptr_array_free (p->all_holders, TRUE);
  g_mutex_clear (&p->lock);
  g_free (p);
}

static void
pool_rec_clear (gpointer data, gpointer unused)
{
  PoolRec *rec = data;

  rec->handed_out = 0;
  rec->max_in_use = rec->in_use;
  rec->empty_count = 0;
  rec->wait_ns = 0;
  rec->first_ts = rec->last_ts = 0;
  rec->samples = 0;
  g_hash_table_remove_all (rec->held);
}

static void
elem_mem_clear (gpointer data, gpointer unused)
{
  ElemMem *m = data;

  m->mems = m->bytes = m->pooled = m->pooled_bytes = 0;
  m->peak = m->live;
}

void
sp_pools_reset (SpPools * p)
{
  if (!p)
    return;
  g_mutex_lock (&p->lock);
  g_ptr_array_foreach (p->all, pool_rec_clear, NULL);
  g_ptr_array_foreach (p->all_elem_mems, elem_mem_clear, NULL);
  g_mutex_unlock (&p->lock);
}

static GstObject *
top_of (GstElement * e)
{
  GstObject *o = GST_OBJECT_CAST (e);

  while (GST_OBJECT_PARENT (o))
    o = GST_OBJECT_PARENT (o);
  return o;
}

/* p->lock held: cold, once per element. */
static Holder *
holder_of (SpPools * p, GstElement * e)
{
  Holder *h = g_hash_table_lookup (p->holders, e);
  const gchar *type;

  if (h)
    return h;
  h = g_new0 (Holder, 1);
  h->element = e;
  h->name = g_strdup (GST_OBJECT_NAME (e));
  type = G_OBJECT_TYPE_NAME (e);
  h->app = strcmp (type, "GstAppSink") == 0;
  g_hash_table_insert (p->holders, e, h);
  g_ptr_array_add (p->all_holders, h);
  return h;
}

/* A pool first seen handing out a buffer on `pad` of `user`: its
 * configuration, read without our lock (the pool takes its own). */
static PoolRec *
pool_rec_new (GstBufferPool * pool, GstElement * user, GstPad * pad)
{
  PoolRec *rec = g_new0 (PoolRec, 1);
  GstStructure *config = gst_buffer_pool_get_config (pool);
  GstAllocator *alloc = NULL;
  GstCaps *caps = NULL;

  rec->pool = pool;
  rec->name = g_strdup (GST_OBJECT_NAME (pool));
  rec->user = g_strdup (GST_OBJECT_NAME (user));
  rec->top = top_of (user);
  rec->pipeline = g_strdup (GST_OBJECT_NAME (rec->top));
  rec->out_pad = pad;
  if (config) {
    gst_buffer_pool_config_get_params (config, &caps, &rec->size, &rec->min,
        &rec->max);
    gst_buffer_pool_config_get_allocator (config, &alloc, NULL);
    /* No allocator: the pool allocates system memory. */
    rec->allocator = g_strdup (alloc && alloc->mem_type ? alloc->mem_type :
        GST_ALLOCATOR_SYSMEM);
    gst_structure_free (config);
  } else {
    rec->allocator = g_strdup ("?");
  }
  rec->held = g_hash_table_new (NULL, NULL);
  return rec;
}

/* p->lock held. */
static PoolRec *
pool_rec_find (SpPools * p, GstBufferPool * pool, GstElement * e,
    GstPad * pad)
{
  PoolRec *rec = g_hash_table_lookup (p->by_pool, pool), *made;
  const gchar *proposer;

  if (rec)
    return rec;
  g_mutex_unlock (&p->lock);
  made = pool_rec_new (pool, e, pad);
  g_mutex_lock (&p->lock);
  rec = g_hash_table_lookup (p->by_pool, pool);
  if (rec) {
    pool_rec_free (made);
    return rec;
  }
  /* No ALLOCATION answer offered it: its user made it. */
  proposer = g_hash_table_lookup (p->proposals, pool);
  made->proposer = g_strdup (proposer ? proposer : made->user);
  g_hash_table_insert (p->by_pool, pool, made);
  g_hash_table_insert (p->by_pad, made->out_pad, made);
  g_ptr_array_add (p->all, made);
  return made;
}

/* Where the buffers out of an empty pool are: one sample per empty
 * spell, at its user's first push return in it (the buffer it pushed last
 * has entered the next element by then). p->lock held. */
static void
sample_holders (SpPools * p, PoolRec * rec)
{
  GHashTableIter it;
  gpointer key, value;

  g_hash_table_iter_init (&it, p->bufs);
  while (g_hash_table_iter_next (&it, &key, &value)) {
    BufRec *b = value;
    if (b->pool == rec) {
      guint64 n = GPOINTER_TO_SIZE (g_hash_table_lookup (rec->held,
              b->holder));
      g_hash_table_insert (rec->held, b->holder, GSIZE_TO_POINTER (n + 1));
    }
  }
  rec->samples++;
  rec->sampled = TRUE;
}

/* p->lock held: cold, once per element. */
static ElemMem *
elem_mem_of (SpPools * p, GstElement * e)
{
  ElemMem *m = g_hash_table_lookup (p->elem_mems, e);

  if (m)
    return m;
  m = g_new0 (ElemMem, 1);
  m->element = e;
  m->top = top_of (e);
  m->name = g_strdup (GST_OBJECT_NAME (e));
  m->pipeline = g_strdup (GST_OBJECT_NAME (m->top));
  g_hash_table_insert (p->elem_mems, e, m);
  g_ptr_array_add (p->all_elem_mems, m);
  return m;
}

/* The memories of a buffer that `e` pushes: those not seen before are
 * its allocations (a share of another memory counts as its root). p->lock
 * held. */
static void
count_memories (SpPools * p, GstElement * e, GstBuffer * buf)
{
  guint i, n = gst_buffer_n_memory (buf);
  ElemMem *m = NULL;

  for (i = 0; i < n; i++) {
    GstMemory *mem = gst_buffer_peek_memory (buf, i);
    MemRec *mr;
    PipeMem *pm;

    while (mem->parent)
      mem = mem->parent;
    if (g_hash_table_contains (p->mems, mem))
      continue;
    if (!m)
      m = elem_mem_of (p, e);
    pm = g_hash_table_lookup (p->pipe_mems, m->top);
    if (!pm) {
      pm = g_new0 (PipeMem, 1);
      pm->top = m->top;
      g_hash_table_insert (p->pipe_mems, m->top, pm);
    }
    mr = g_new (MemRec, 1);
    mr->by = m;
    mr->pipe = pm;
    mr->size = mem->maxsize;
    g_hash_table_insert (p->mems, mem, mr);
    m->mems++;
    m->bytes += mr->size;
    m->live += mr->size;
    m->peak = MAX (m->peak, m->live);
    pm->live += mr->size;
    pm->peak = MAX (pm->peak, pm->live);
  }
}

/* p->lock held. */
static void
hand_out (SpPools * p, guint64 ts, GstPad * pad, GstElement * e,
    GstBuffer * buf)
{
  PoolRec *rec;
  BufRec *b;

  if (g_hash_table_contains (p->bufs, buf))
    return;
  rec = pool_rec_find (p, buf->pool, e, pad);
  b = g_new (BufRec, 1);
  b->pool = rec;
  b->holder = holder_of (p, e);
  g_hash_table_insert (p->bufs, buf, b);
  {
    ElemMem *m = elem_mem_of (p, e);
    m->pooled++;
    m->pooled_bytes += rec->size;
  }
  if (rec->handed_out++ == 0)
    rec->first_ts = ts;
  rec->last_ts = ts;
  rec->in_use++;
  rec->max_in_use = MAX (rec->max_in_use, rec->in_use);
  rec->eos = FALSE;
  if (rec->max > 0 && rec->in_use >= rec->max && rec->empty_since == 0) {
    rec->empty_since = ts;
    rec->empty_count++;
    rec->sampled = FALSE;
  }
}

static void
push_one (SpPools * p, guint64 ts, GstPad * pad, GstElement * e,
    GstBuffer * buf)
{
  PoolRec *rec;

  count_memories (p, e, buf);
  if (!buf->pool)
    return;
  hand_out (p, ts, pad, e, buf);
  rec = g_hash_table_lookup (p->by_pad, pad);
  if (rec && rec->pool == buf->pool)
    rec->in_push = TRUE;
}

void
sp_pools_push (SpPools * p, guint64 ts, GstPad * pad, GstBuffer * buf)
{
  GstElement *e;

  if (!(e = sp_pad_element (pad)))
    return;
  g_mutex_lock (&p->lock);
  push_one (p, ts, pad, e, buf);
  g_mutex_unlock (&p->lock);
}

void
sp_pools_push_list (SpPools * p, guint64 ts, GstPad * pad,
    GstBufferList * list)
{
  GstElement *e = sp_pad_element (pad);
  guint i, n = gst_buffer_list_length (list);

  if (!e)
    return;
  g_mutex_lock (&p->lock);
  for (i = 0; i < n; i++)
    push_one (p, ts, pad, e, gst_buffer_list_get (list, i));
  g_mutex_unlock (&p->lock);
}

void
sp_pools_push_post (SpPools * p, guint64 ts, GstPad * pad)
{
  PoolRec *rec;

  g_mutex_lock (&p->lock);
  if ((rec = g_hash_table_lookup (p->by_pad, pad))) {
    rec->in_push = FALSE;
    rec->last_return = ts;
    if (rec->empty_since && !rec->sampled)
      sample_holders (p, rec);
  }
  g_mutex_unlock (&p->lock);
}

/* An EOS from a user: it acquires nothing more, so the pool's next
 * return ends no wait of it. */
void
sp_pools_event (SpPools * p, guint64 ts, GstPad * pad, GstEvent * ev)
{
  PoolRec *rec;

  if (GST_EVENT_TYPE (ev) != GST_EVENT_EOS)
    return;
  g_mutex_lock (&p->lock);
  if ((rec = g_hash_table_lookup (p->by_pad, pad)))
    rec->eos = TRUE;
  g_mutex_unlock (&p->lock);
}

static void
chain_one (SpPools * p, GstElement * e, GstBuffer * buf)
{
  BufRec *b;

  if (buf->pool && (b = g_hash_table_lookup (p->bufs, buf)))
    b->holder = holder_of (p, e);
}

void
sp_pools_chain (SpPools * p, guint64 ts, GstPad * pad, GstBuffer * buf)
{
  GstElement *e;

  if (G_LIKELY (buf->pool == NULL) || !(e = sp_pad_element (pad)))
    return;
  g_mutex_lock (&p->lock);
  chain_one (p, e, buf);
  g_mutex_unlock (&p->lock);
}

void
sp_pools_chain_list (SpPools * p, guint64 ts, GstPad * pad,
    GstBufferList * list)
{
  GstElement *e = sp_pad_element (pad);
  guint i, n = gst_buffer_list_length (list);

  if (!e)
    return;
  g_mutex_lock (&p->lock);
  for (i = 0; i < n; i++)
    chain_one (p, e, gst_buffer_list_get (list, i));
  g_mutex_unlock (&p->lock);
}

/* The last reference of a pooled buffer went: _gst_buffer_dispose()
 * returns it to its pool right after this hook. */
/* A memory we counted is freed. */
static void
memory_freed (SpPools * p, GstMiniObject * obj)
{
  MemRec *mr;

  g_mutex_lock (&p->lock);
  if ((mr = g_hash_table_lookup (p->mems, obj))) {
    mr->by->live -= mr->size;
    mr->pipe->live -= mr->size;
    g_hash_table_remove (p->mems, obj);
  }
  g_mutex_unlock (&p->lock);
}

void
sp_pools_unreffed (SpPools * p, guint64 ts, GstMiniObject * obj,
    gint refcount)
{
  static GType memory_type;
  BufRec *b;
  PoolRec *rec;

  if (G_LIKELY (refcount != 0))
    return;
  if (G_UNLIKELY (memory_type == 0))
    memory_type = GST_TYPE_MEMORY;
  if (GST_MINI_OBJECT_TYPE (obj) == memory_type) {
    memory_freed (p, obj);
    return;
  }
  if (!GST_IS_BUFFER (obj) || ((GstBuffer *) obj)->pool == NULL)
    return;
  g_mutex_lock (&p->lock);
  b = g_hash_table_lookup (p->bufs, obj);
  if (b) {
    rec = b->pool;
    if (rec->empty_since) {
      guint64 from = MAX (rec->empty_since, rec->last_return);
      if (!rec->in_push && !rec->eos && ts > from)
        rec->wait_ns += ts - from;
      rec->empty_since = 0;
    }
    rec->in_use--;
    rec->last_ts = ts;
    g_hash_table_remove (p->bufs, obj);
  }
  g_mutex_unlock (&p->lock);
}

/* An ALLOCATION query's answer: the pools it offers and who offered
 * them. The hook fires on the asking pad (gst_pad_peer_query: the
 * answer is its peer's) and on the answering one (gst_pad_query). */
void
sp_pools_query (SpPools * p, GstPad * pad, GstQuery * query, gboolean res)
{
  GstElement *by = NULL;
  guint i, n;

  /* Read whatever the query holds, also when it returned FALSE: the
   * asking element decides on what it holds either way (basesrc does,
   * and an application's pad probe that adds a pool to appsink's answer
   * leaves it FALSE). */
  if (GST_QUERY_TYPE (query) != GST_QUERY_ALLOCATION)
    return;
  if (GST_PAD_IS_SINK (pad)) {
    by = sp_pad_element (pad);
    if (by)
      gst_object_ref (by);
  } else {
    GstPad *peer = gst_pad_get_peer (pad);
    if (peer) {
      by = (GstElement *) gst_object_get_parent (GST_OBJECT (peer));
      gst_object_unref (peer);
    }
  }
  if (!by)
    return;
  n = gst_query_get_n_allocation_pools (query);
  for (i = 0; i < n; i++) {
    GstBufferPool *pool = NULL;

    gst_query_parse_nth_allocation_pool (query, i, &pool, NULL, NULL, NULL);
    if (!pool)
      continue;
    /* The innermost answer comes first: an element that forwards the
     * query (a passthrough videoconvert, a capsfilter) answers after the
     * one that offered the pool. */
    g_mutex_lock (&p->lock);
    if (!g_hash_table_contains (p->proposals, pool))
      g_hash_table_insert (p->proposals, pool,
          g_strdup (GST_OBJECT_NAME (by)));
    g_mutex_unlock (&p->lock);
    gst_object_unref (pool);
  }
  gst_object_unref (by);
}

static gboolean
buf_of_pool (gpointer key, gpointer value, gpointer pool)
{
  return ((BufRec *) value)->pool == pool;
}

void
sp_pools_object_destroyed (SpPools * p, gpointer obj)
{
  PoolRec *rec;
  Holder *h;

  g_mutex_lock (&p->lock);
  g_hash_table_remove (p->proposals, obj);
  /* a pad that went: its address may be the next pad's */
  g_hash_table_remove (p->by_pad, obj);
  if ((rec = g_hash_table_lookup (p->by_pool, obj))) {
    /* A finalized pool has all its buffers back; its identity may be
     * reused by the next pool. */
    g_hash_table_foreach_remove (p->bufs, buf_of_pool, rec);
    rec->in_use = 0;
    rec->pool = NULL;
    if (g_hash_table_lookup (p->by_pad, rec->out_pad) == rec)
      g_hash_table_remove (p->by_pad, rec->out_pad);
    rec->out_pad = NULL;
    g_hash_table_remove (p->by_pool, obj);
  }
  if ((h = g_hash_table_lookup (p->holders, obj))) {
    h->element = NULL;
    g_hash_table_remove (p->holders, obj);
  }
  if (g_hash_table_lookup (p->elem_mems, obj)) {
    ((ElemMem *) g_hash_table_lookup (p->elem_mems, obj))->element = NULL;
    g_hash_table_remove (p->elem_mems, obj);
  }
  g_mutex_unlock (&p->lock);
}

static gint
cmp_held (gconstpointer a, gconstpointer b)
{
  gdouble x = ((const SpPoolHeld *) a)->mean, y = ((const SpPoolHeld *) b)->mean;

  return x < y ? 1 : x > y ? -1 : 0;
}

/* p->lock held. */
static GArray *
held_of (PoolRec * rec)
{
  GArray *held = g_array_new (FALSE, FALSE, sizeof (SpPoolHeld));
  GHashTableIter it;
  gpointer key, value;

  g_hash_table_iter_init (&it, rec->held);
  while (rec->samples && g_hash_table_iter_next (&it, &key, &value)) {
    Holder *h = key;
    SpPoolHeld e = { g_strdup (h->name), h->app,
      GPOINTER_TO_SIZE (value) / (gdouble) rec->samples
    };
    g_array_append_val (held, e);
  }
  g_array_sort (held, cmp_held);
  return held;
}

GArray *
sp_pools_stats (SpPools * p, gpointer pipeline)
{
  GArray *out = g_array_new (FALSE, TRUE, sizeof (SpPoolStat));

  g_mutex_lock (&p->lock);
  for (guint i = 0; i < p->all->len; i++) {
    PoolRec *rec = g_ptr_array_index (p->all, i);
    SpPoolStat st = { 0 };

    if (rec->handed_out == 0 || (pipeline && rec->top != pipeline))
      continue;
    st.name = g_strdup (rec->name);
    st.pipeline = g_strdup (rec->pipeline);
    st.user = g_strdup (rec->user);
    st.proposer = g_strdup (rec->proposer);
    st.allocator = g_strdup (rec->allocator);
    st.size = rec->size;
    st.min = rec->min;
    st.max = rec->max;
    st.handed_out = rec->handed_out;
    st.in_use = rec->in_use;
    st.max_in_use = rec->max_in_use;
    st.empty = rec->empty_count;
    st.wait_ns = rec->wait_ns;
    st.span_ns = rec->last_ts > rec->first_ts ?
        rec->last_ts - rec->first_ts : 0;
    st.held = held_of (rec);
    g_array_append_val (out, st);
  }
  g_mutex_unlock (&p->lock);
  return out;
}

void
sp_pools_stats_free (GArray * pools)
{
  for (guint i = 0; i < pools->len; i++) {
    SpPoolStat *st = &g_array_index (pools, SpPoolStat, i);
    g_free (st->name);
    g_free (st->pipeline);
    g_free (st->user);
    g_free (st->proposer);
    g_free (st->allocator);
    for (guint j = 0; j < st->held->len; j++)
      g_free (g_array_index (st->held, SpPoolHeld, j).name);
    g_array_free (st->held, TRUE);
  }
  g_array_free (pools, TRUE);
}

GArray *
sp_memory_stats (SpPools * p, gpointer pipeline)
{
  GArray *out = g_array_new (FALSE, TRUE, sizeof (SpMemStat));

  g_mutex_lock (&p->lock);
  for (guint i = 0; i < p->all_elem_mems->len; i++) {
    ElemMem *m = g_ptr_array_index (p->all_elem_mems, i);
    SpMemStat st = { g_strdup (m->name), g_strdup (m->pipeline), m->mems,
      m->bytes, m->pooled, m->pooled_bytes, (guint64) MAX (m->live, 0),
      (guint64) MAX (m->peak, 0)
    };

    if ((m->mems == 0 && m->pooled == 0) || (pipeline && m->top != pipeline)) {
      g_free (st.name);
      g_free (st.pipeline);
      continue;
    }
    g_array_append_val (out, st);
  }
  g_mutex_unlock (&p->lock);
  return out;
}

void
sp_memory_stats_free (GArray * mems)
{
  for (guint i = 0; i < mems->len; i++) {
    g_free (g_array_index (mems, SpMemStat, i).name);
    g_free (g_array_index (mems, SpMemStat, i).pipeline);
  }
  g_array_free (mems, TRUE);
}

guint64
sp_memory_pipeline_peak (SpPools * p, gpointer pipeline)
{
  PipeMem *pm;
  guint64 peak = 0;

  g_mutex_lock (&p->lock);
  if ((pm = g_hash_table_lookup (p->pipe_mems, pipeline)))
    peak = MAX (pm->peak, 0);
  g_mutex_unlock (&p->lock);
  return peak;
}

gboolean
sp_process_rss (guint64 * now, guint64 * peak)
{
  gchar *text = NULL;
  const gchar *rss, *hwm;
  gboolean ok;

  if (!g_file_get_contents ("/proc/self/status", &text, NULL, NULL))
    return FALSE;
  rss = strstr (text, "\nVmRSS:");
  hwm = strstr (text, "\nVmHWM:");
  ok = rss && hwm;
  if (ok) {
    *now = g_ascii_strtoull (rss + 7, NULL, 10) * 1024;
    *peak = g_ascii_strtoull (hwm + 7, NULL, 10) * 1024;
  }
  g_free (text);
  return ok;
}
