/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sptrace: Chrome trace-event JSON written by a writer thread.
 *
 * Hot path. Each streaming thread owns one SpThreadBuf per trace: a singly
 * linked list of fixed-size chunks of binary records. The thread appends a
 * record and publishes it with a release store of the chunk's count; the
 * writer thread reads every committed record with an acquire load. That is a
 * single-producer/single-consumer queue per thread, so streaming threads
 * share no lock; the chunk pool's mutex is taken once per chunk (every
 * SP_CHUNK_RECORDS events), never per event. Because the writer reads the
 * committed prefix of partial chunks too, nothing waits for a chunk to fill:
 * sp_trace_flush() sees every event already recorded, and a thread that
 * exits loses nothing (its GPrivate destroy notify marks its buffer dead so
 * the writer frees it after the last drain).
 *
 * Bounded memory. Drained chunks go back to a pool; at most
 * SP_TRACE_MAX_BYTES of chunks exist. If the writer falls that far behind,
 * new events are DROPPED (never blocking a streaming thread, which would
 * distort the very timings being recorded) and counted; sp_trace_free()
 * warns with the count and sp_trace_get_dropped() returns it. The writer
 * also holds up to 100 ms (of ts) of each thread's records for ordering.
 *
 * Order. Per thread, events are written in ts order (slices are recorded
 * when they end, so the writer sorts and holds back recent records; see
 * sp_drain_thread() for the exact guarantee: slices shorter than 100 ms).
 *
 * Crash safety. The writer formats whole lines into its own buffer and hands
 * them to write(2), so the file always ends at a line boundary after each
 * write; lines after the first event start with ",", so a file cut by
 * kill -9 becomes strict JSON by appending "]". A write cut short (disk
 * full, file-size limit) is cut back to its last whole line and writing
 * stops there: the file stays "append ] and it parses", and the events not
 * written are counted (sp_trace_get_lost(), and the warning at close).
 *
 * Output path. A symbolic link is refused (never followed into
 * truncation); an existing file is truncated. See docs/tracer.md.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "sptrace.h"
#include "jsontext.h"

#include "spfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SP_CHUNK_RECORDS 1024
#define SP_TRACE_MAX_BYTES (64 * 1024 * 1024)
/* Half the promised 200 ms flush period: a drain can take a while. */
#define SP_WRITER_PERIOD_US (100 * 1000)
#define SP_OUT_BUF_BYTES (256 * 1024)
/* Per-thread ts order: see sp_drain_thread(). */
#define SP_HOLD_NS (100 * G_GUINT64_CONSTANT (1000000))
#define SP_NAME_CACHE_SLOTS 64
/* Formatting writes up to this many bytes past an escaped name or a
 * pid/tid pair (fixed-size copies, no libc call): sp_reserve() room. */
#define SP_NAME_PAD 32
#define SP_IDS_BYTES 48

enum
{
  SP_REC_COUNTER = SP_SLICE_BLOCKED + 1,
  SP_REC_FLOW,                  /* + SpFlowPhase */
  SP_REC_WORK = SP_REC_FLOW + SP_FLOW_END + 1,  /* + the rest's SpSliceKind */
};

/* Slices have a duration (`a`); counters and flow points have none. */
#define SP_REC_HAS_DUR(kind) ((kind) < SP_REC_COUNTER)

typedef struct
{
  const gchar *name;
  guint64 ts;
  guint64 a;                    /* slice: dur_ns; counter: buffers */
  guint64 b;                    /* slice: tid; counter: bytes */
  guint32 pid;
  guint32 kind;
} SpRecord;

typedef struct _SpChunk SpChunk;
struct _SpChunk
{
  SpChunk *next;                /* atomic; set by the producer when full */
  guint n;                      /* atomic; committed records */
  SpRecord recs[SP_CHUNK_RECORDS];
};

typedef struct
{
  gint ref;                     /* atomic: the trace's list + the thread's TLS */
  gint dead;                    /* atomic: its thread exited */
  gint trace_gone;              /* atomic: sp_trace_free() ran */
  guint64 dropped;              /* atomic */
  SpChunk *cur;                 /* producer only */
  SpChunk *rchunk;              /* writer only */
  guint ridx;                   /* writer only */
  GArray *pending;              /* writer only: read, not yet written */
  guint64 max_end;              /* writer only: latest slice end seen */
} SpThreadBuf;

typedef struct
{
  const gchar *name;
  const struct _SpName *e;
} SpNameSlot;

struct _SpTrace
{
  guint64 id;
  gchar *path;
  int fd;
  GThread *writer;

  /* Registry of thread buffers, metadata, the flush handshake. Taken by
   * streaming threads only once per thread (registration). */
  GMutex lock;
  GCond wake;
  GCond flushed;
  GPtrArray *tbs;
  GPtrArray *meta;              /* formatted metadata events, no separator */
  guint64 flush_req, flush_done;
  gboolean stop;
  guint64 dropped_dead;         /* drops of threads already gone */
  gboolean has_clock;           /* the stageprof_start event is queued */

  GMutex pool_lock;
  SpChunk *pool;
  guint n_chunks, max_chunks;

  /* Writer thread only. */
  gchar *obuf;                  /* formatted, not yet written */
  gsize olen, ocap;
  gboolean first;
  GHashTable *names;            /* name pointer -> escaped name */
  /* In front of `names`: a trace has a few dozen names, each looked up
   * once per event. */
  SpNameSlot name_cache[SP_NAME_CACHE_SLOTS];
  /* ,"pid":P,"tid":T of the last slice: records come grouped by thread. */
  guint32 ids_pid;
  guint64 ids_tid;
  gsize ids_len;
  gchar ids[SP_IDS_BYTES];
  GPtrArray *snap;
  gboolean write_failed;
  int write_errno;
  guint64 events;               /* atomic */
  guint64 bytes;                /* atomic */
  guint64 lost;                 /* atomic: lines formatted, not written */
};

static guint64 sp_next_trace_id = 1;

/* ---- per-thread state ---------------------------------------------------- */

typedef struct
{
  guint64 id;
  SpThreadBuf *tb;
} SpTlsEntry;

typedef struct
{
  SpTlsEntry last;
  GArray *entries;              /* SpTlsEntry */
} SpTls;

static void
sp_thread_buf_unref (SpThreadBuf * tb)
{
  if (g_atomic_int_dec_and_test (&tb->ref))
    g_free (tb);
}

/* initial-exec: a plain %fs-relative load per event instead of a call to
 * __tls_get_addr (the default model in a dlopen()ed plugin). */
static __thread SpTls *sp_tls_fast
    __attribute__ ((tls_model ("initial-exec")));

static void
sp_tls_free (gpointer data)
{
  SpTls *tls = data;
  guint i;

  for (i = 0; i < tls->entries->len; i++) {
    SpThreadBuf *tb = g_array_index (tls->entries, SpTlsEntry, i).tb;
    /* Release: every record this thread committed is visible to the writer
     * once it sees `dead`. */
    __atomic_store_n (&tb->dead, 1, __ATOMIC_RELEASE);
    sp_thread_buf_unref (tb);
  }
  g_array_free (tls->entries, TRUE);
  g_free (tls);
  sp_tls_fast = NULL;
}

/* GPrivate for the destroy notify on thread exit; __thread for a fast read. */
static GPrivate sp_tls_key = G_PRIVATE_INIT (sp_tls_free);

/* ---- chunk pool ---------------------------------------------------------- */

static SpChunk *
sp_pool_get (SpTrace * t, gboolean force)
{
  SpChunk *c;

  g_mutex_lock (&t->pool_lock);
  c = t->pool;
  if (c) {
    t->pool = c->next;
  } else if (force || t->n_chunks < t->max_chunks) {
    t->n_chunks++;
    c = g_new (SpChunk, 1);
  }
  g_mutex_unlock (&t->pool_lock);
  if (c) {
    c->next = NULL;
    c->n = 0;
  }
  return c;
}

static void
sp_pool_put (SpTrace * t, SpChunk * c)
{
  g_mutex_lock (&t->pool_lock);
  c->next = t->pool;
  t->pool = c;
  g_mutex_unlock (&t->pool_lock);
}

/* ---- hot path ------------------------------------------------------------ */

static SpThreadBuf *
sp_thread_buf_slow (SpTrace * t)
{
  SpTls *tls = sp_tls_fast;
  SpThreadBuf *tb;
  SpTlsEntry e;
  guint i;

  if (!tls) {
    tls = g_new0 (SpTls, 1);
    tls->entries = g_array_new (FALSE, FALSE, sizeof (SpTlsEntry));
    g_private_set (&sp_tls_key, tls);
    sp_tls_fast = tls;
  }
  for (i = 0; i < tls->entries->len;) {
    SpTlsEntry *it = &g_array_index (tls->entries, SpTlsEntry, i);
    if (it->id == t->id) {
      tls->last = *it;
      return it->tb;
    }
    /* Forget buffers of traces freed since: a thread that outlives many
     * traces (an application's main thread) must not keep them all. */
    if (g_atomic_int_get (&it->tb->trace_gone)) {
      sp_thread_buf_unref (it->tb);
      g_array_remove_index_fast (tls->entries, i);
      continue;
    }
    i++;
  }

  tb = g_new0 (SpThreadBuf, 1);
  tb->ref = 2;
  tb->cur = tb->rchunk = sp_pool_get (t, TRUE);
  g_mutex_lock (&t->lock);
  g_ptr_array_add (t->tbs, tb);
  g_mutex_unlock (&t->lock);

  e.id = t->id;
  e.tb = tb;
  g_array_append_val (tls->entries, e);
  tls->last = e;
  return tb;
}

static inline SpThreadBuf *
sp_thread_buf (SpTrace * t)
{
  SpTls *tls = sp_tls_fast;

  if (G_LIKELY (tls != NULL && tls->last.id == t->id))
    return tls->last.tb;
  return sp_thread_buf_slow (t);
}

static inline void
sp_record (SpTrace * t, guint32 kind, guint pid, const gchar * name,
    guint64 ts, guint64 a, guint64 b)
{
  SpThreadBuf *tb = sp_thread_buf (t);
  SpChunk *c = tb->cur;
  guint n = __atomic_load_n (&c->n, __ATOMIC_RELAXED);
  SpRecord *r;

  if (G_UNLIKELY (n == SP_CHUNK_RECORDS)) {
    SpChunk *next = sp_pool_get (t, FALSE);
    if (G_UNLIKELY (next == NULL)) {
      __atomic_fetch_add (&tb->dropped, 1, __ATOMIC_RELAXED);
      return;
    }
    __atomic_store_n (&c->next, next, __ATOMIC_RELEASE);
    tb->cur = c = next;
    n = 0;
  }
  r = &c->recs[n];
  r->name = name;
  r->ts = ts;
  r->a = a;
  r->b = b;
  r->pid = pid;
  r->kind = kind;
  __atomic_store_n (&c->n, n + 1, __ATOMIC_RELEASE);
}

void
sp_trace_slice (SpTrace * t, guint pid, guint64 tid, const gchar * name,
    guint64 ts_ns, guint64 dur_ns, SpSliceKind kind)
{
  sp_record (t, kind, pid, name, ts_ns, dur_ns, tid);
}

void
sp_trace_counter (SpTrace * t, guint pid, const gchar * name, guint64 ts_ns,
    gint64 buffers, gint64 bytes)
{
  sp_record (t, SP_REC_COUNTER, pid, name, ts_ns, (guint64) buffers,
      (guint64) bytes);
}

void
sp_trace_flow (SpTrace * t, guint pid, guint64 tid, guint64 id, guint64 ts_ns,
    SpFlowPhase phase)
{
  sp_record (t, SP_REC_FLOW + phase, pid, "frame", ts_ns, id, tid);
}

void
sp_trace_work (SpTrace * t, guint pid, guint64 tid, const gchar * name,
    guint64 ts_ns, guint64 work_ns, SpSliceKind rest)
{
  sp_record (t, SP_REC_WORK + rest, pid, name, ts_ns, work_ns, tid);
}

/* ---- JSON formatting (writer thread) ------------------------------------- */

/* The writer formats straight into a byte buffer: GString's per-call
 * overhead was most of the writer's time. */

typedef struct _SpName
{
  gchar *s;
  gsize len;
} SpName;

static void
sp_name_free (gpointer p)
{
  SpName *n = p;

  g_free (n->s);
  g_free (n);
}

static inline gchar *
sp_put (gchar * p, const gchar * s, gsize n)
{
  memcpy (p, s, n);
  return p + n;
}

#define SP_PUT_LIT(p, lit) sp_put ((p), (lit), sizeof (lit) - 1)

static const gchar sp_digits2[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

static inline guint
sp_n_digits (guint64 v)
{
  guint n = 1;

  while (v >= 10000) {
    v /= 10000;
    n += 4;
  }
  return n + (v >= 10) + (v >= 100) + (v >= 1000);
}

/* Two digits per division: timestamps have a dozen or more. Written in
 * place, back to front, rather than copied from a scratch buffer: no libc
 * call per number. */
static inline gchar *
sp_put_u64 (gchar * p, guint64 v)
{
  gchar *end = p + sp_n_digits (v), *q = end;

  while (v >= 100) {
    guint d = (guint) (v % 100) * 2;
    v /= 100;
    *--q = sp_digits2[d + 1];
    *--q = sp_digits2[d];
  }
  if (v >= 10) {
    *--q = sp_digits2[v * 2 + 1];
    *--q = sp_digits2[v * 2];
  } else {
    *--q = '0' + (gchar) v;
  }
  return end;
}

static inline gchar *
sp_put_i64 (gchar * p, gint64 v)
{
  if (v < 0) {
    *p++ = '-';
    return sp_put_u64 (p, -(guint64) v);
  }
  return sp_put_u64 (p, (guint64) v);
}

/* Nanoseconds as microseconds with three decimals, exactly. */
static inline gchar *
sp_put_us (gchar * p, guint64 ns)
{
  guint frac = ns % 1000;

  p = sp_put_u64 (p, ns / 1000);
  p[0] = '.';
  p[1] = '0' + frac / 100;
  p[2] = '0' + frac / 10 % 10;
  p[3] = '0' + frac % 10;
  return p + 4;
}

static const SpName *
trace_name_slow (SpTrace * t, const gchar * name)
{
  SpName *e = g_hash_table_lookup (t->names, name);

  if (!e) {
    GString *s = g_string_new (NULL);
    stage_json_escape (s, name);
    e = g_new (SpName, 1);
    e->len = s->len;
    /* Padded: sp_put_name() copies a fixed SP_NAME_PAD bytes. */
    e->s = g_malloc0 (s->len + SP_NAME_PAD);
    memcpy (e->s, s->str, s->len);
    g_string_free (s, TRUE);
    g_hash_table_insert (t->names, (gpointer) name, e);
  }
  return e;
}

/* Two ways: slots i and i ^ 1, the newest in i. */
static inline const SpName *
trace_name (SpTrace * t, const gchar * name)
{
  guint64 p = (guintptr) name;
  guint i = (guint) ((p * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15)) >> 40)
      & (SP_NAME_CACHE_SLOTS - 1);
  SpNameSlot *a = &t->name_cache[i], *b = &t->name_cache[i ^ 1];

  if (G_LIKELY (a->name == name && a->e))
    return a->e;
  if (b->name == name && b->e)
    return b->e;
  *b = *a;
  a->e = trace_name_slow (t, name);
  a->name = name;
  return a->e;
}

static void sp_write_out (SpTrace * t);

/* Room for `need` more bytes: write out what is there, grow if one event
 * alone is larger than the buffer. */
static inline gchar *
sp_reserve (SpTrace * t, gsize need)
{
  if (t->olen + need > t->ocap) {
    sp_write_out (t);
    if (need > t->ocap) {
      t->ocap = need;
      t->obuf = g_realloc (t->obuf, t->ocap);
    }
  }
  return t->obuf + t->olen;
}

static inline gchar *
sp_put_sep (SpTrace * t, gchar * p)
{
  if (G_UNLIKELY (t->first))
    t->first = FALSE;
  else
    *p++ = ',';
  return p;
}

static void
sp_append_raw (SpTrace * t, const gchar * s, gsize len)
{
  gchar *p = sp_reserve (t, len);

  memcpy (p, s, len);
  t->olen += len;
}

static inline gchar *
sp_put_name (gchar * p, const SpName * name)
{
  if (G_LIKELY (name->len <= SP_NAME_PAD))
    memcpy (p, name->s, SP_NAME_PAD);
  else
    memcpy (p, name->s, name->len);
  return p + name->len;
}

static inline gchar *
sp_put_ids (SpTrace * t, gchar * p, guint32 pid, guint64 tid)
{
  if (G_UNLIKELY (t->ids_len == 0 || t->ids_pid != pid || t->ids_tid != tid)) {
    gchar *q = t->ids;

    q = SP_PUT_LIT (q, ",\"pid\":");
    q = sp_put_u64 (q, pid);
    q = SP_PUT_LIT (q, ",\"tid\":");
    q = sp_put_u64 (q, tid);
    t->ids_len = q - t->ids;
    t->ids_pid = pid;
    t->ids_tid = tid;
  }
  memcpy (p, t->ids, SP_IDS_BYTES);
  return p + t->ids_len;
}

static void
sp_format_record (SpTrace * t, const SpRecord * r)
{
  const SpName *name = trace_name (t, r->name);
  /* Fixed text plus up to 6 numbers of 21 characters, plus the name twice,
   * plus what the fixed-size copies write past their end. */
  gchar *p = sp_reserve (t, 384 + 2 * name->len + SP_IDS_BYTES), *start = p;

  p = sp_put_sep (t, p);
  if (r->kind >= SP_REC_WORK) {
    static const gchar *const rest[] = { "work", "input", "output", "gpu",
      "clock", "blocked"
    };
    p = SP_PUT_LIT (p, "{\"name\":\"stageprof_work\",\"ph\":\"M\",\"ts\":");
    p = sp_put_us (p, r->ts);
    p = sp_put_ids (t, p, r->pid, r->b);
    p = SP_PUT_LIT (p, ",\"args\":{\"element\":\"");
    p = sp_put_name (p, name);
    p = SP_PUT_LIT (p, "\",\"work\":");
    p = sp_put_us (p, r->a);
    p = SP_PUT_LIT (p, ",\"rest\":\"");
    p = sp_put (p, rest[r->kind - SP_REC_WORK],
        strlen (rest[r->kind - SP_REC_WORK]));
    p = SP_PUT_LIT (p, "\"}}\n");
    t->olen += p - start;
    return;
  }
  if (r->kind >= SP_REC_FLOW) {
    /* The start and steps bind to the slice enclosing them (the element
     * the frame enters); the end too ("bp":"e"), not to the next one. */
    static const gchar ph[] = { 's', 't', 'f' };
    p = SP_PUT_LIT (p, "{\"name\":\"frame\",\"cat\":\"latency\",\"ph\":\"");
    *p++ = ph[r->kind - SP_REC_FLOW];
    p = SP_PUT_LIT (p, "\",\"bp\":\"e\",\"id\":");
    p = sp_put_u64 (p, r->a);
    p = SP_PUT_LIT (p, ",\"ts\":");
    p = sp_put_us (p, r->ts);
    p = sp_put_ids (t, p, r->pid, r->b);
    p = SP_PUT_LIT (p, "}\n");
    t->olen += p - start;
    return;
  }
  if (r->kind == SP_REC_COUNTER) {
    /* One track per quantity: viewers draw the args of one counter event
     * stacked on one scale, where bytes (1e6) flatten buffers (1-25). */
    p = SP_PUT_LIT (p, "{\"name\":\"");
    p = sp_put_name (p, name);
    p = SP_PUT_LIT (p, " buffers\",\"ph\":\"C\",\"ts\":");
    p = sp_put_us (p, r->ts);
    p = SP_PUT_LIT (p, ",\"pid\":");
    p = sp_put_u64 (p, r->pid);
    p = SP_PUT_LIT (p, ",\"args\":{\"buffers\":");
    p = sp_put_i64 (p, (gint64) r->a);
    p = SP_PUT_LIT (p, "}}\n,{\"name\":\"");
    p = sp_put_name (p, name);
    p = SP_PUT_LIT (p, " bytes\",\"ph\":\"C\",\"ts\":");
    p = sp_put_us (p, r->ts);
    p = SP_PUT_LIT (p, ",\"pid\":");
    p = sp_put_u64 (p, r->pid);
    p = SP_PUT_LIT (p, ",\"args\":{\"bytes\":");
    p = sp_put_i64 (p, (gint64) r->b);
    p = SP_PUT_LIT (p, "}}\n");
    t->olen += p - start;
    return;
  }

  switch (r->kind) {
    case SP_SLICE_WAIT_INPUT:
      p = SP_PUT_LIT (p,
          "{\"name\":\"Wait on Input Queue\",\"cat\":\"wait\",\"ph\":\"X\",\"ts\":");
      break;
    case SP_SLICE_WAIT_OUTPUT:
      p = SP_PUT_LIT (p,
          "{\"name\":\"Wait on Output Queue\",\"cat\":\"wait\",\"ph\":\"X\",\"ts\":");
      break;
    case SP_SLICE_WAIT_CLOCK:
      p = SP_PUT_LIT (p,
          "{\"name\":\"Wait on Clock\",\"cat\":\"wait\",\"ph\":\"X\",\"ts\":");
      break;
    case SP_SLICE_BLOCKED:
      p = SP_PUT_LIT (p,
          "{\"name\":\"Blocked\",\"cat\":\"wait\",\"ph\":\"X\",\"ts\":");
      break;
    case SP_SLICE_GPU:
      p = SP_PUT_LIT (p, "{\"name\":\"");
      p = sp_put_name (p, name);
      p = SP_PUT_LIT (p, "\",\"cat\":\"gpu\",\"ph\":\"X\",\"ts\":");
      break;
    default:
      p = SP_PUT_LIT (p, "{\"name\":\"");
      p = sp_put_name (p, name);
      /* Element slices are most of a trace: they go without a "cat"
       * (optional in the format), which keeps events under 100 bytes. */
      p = SP_PUT_LIT (p, "\",\"ph\":\"X\",\"ts\":");
      break;
  }
  p = sp_put_us (p, r->ts);
  p = SP_PUT_LIT (p, ",\"dur\":");
  p = sp_put_us (p, r->a);
  p = sp_put_ids (t, p, r->pid, r->b);
  if (r->kind != SP_SLICE_ELEMENT && r->kind != SP_SLICE_GPU) {
    p = SP_PUT_LIT (p, ",\"cname\":\"grey\",\"args\":{\"element\":\"");
    p = sp_put_name (p, name);
    p = SP_PUT_LIT (p, "\"}");
  }
  p = SP_PUT_LIT (p, "}\n");
  t->olen += p - start;
}

static guint64
sp_count_lines (const gchar * p, gsize len)
{
  guint64 n = 0;
  const gchar *end = p + len;

  while (p < end && (p = memchr (p, '\n', end - p)) != NULL) {
    n++;
    p++;
  }
  return n;
}

/* Whole lines or nothing: a write cut short (ENOSPC, EFBIG under a
 * file-size limit, EIO) is cut back to its last whole line, and writing
 * stops; every line not written is counted as lost. */
static void
sp_write_out (SpTrace * t)
{
  gsize len = t->olen, off = 0, keep;

  t->olen = 0;
  if (len == 0)
    return;
  if (t->write_failed) {
    __atomic_fetch_add (&t->lost, sp_count_lines (t->obuf, len),
        __ATOMIC_RELAXED);
    return;
  }
  while (off < len) {
    gssize n = write (t->fd, t->obuf + off, len - off);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      t->write_errno = n < 0 ? errno : ENOSPC;
      break;
    }
    off += n;
  }
  if (off == len) {
    __atomic_fetch_add (&t->bytes, len, __ATOMIC_RELAXED);
    return;
  }
  /* Cut back to the last whole line written. */
  for (keep = off; keep > 0 && t->obuf[keep - 1] != '\n'; keep--);
  if (keep < off) {
    guint64 at = __atomic_load_n (&t->bytes, __ATOMIC_RELAXED) + keep;
    if (ftruncate (t->fd, (off_t) at) != 0 || lseek (t->fd, (off_t) at,
            SEEK_SET) < 0)
      g_warning ("stageprof: cannot cut trace file \"%s\" back to a whole "
          "line: %s", t->path, g_strerror (errno));
  }
  __atomic_fetch_add (&t->bytes, keep, __ATOMIC_RELAXED);
  __atomic_fetch_add (&t->lost, sp_count_lines (t->obuf + keep, len - keep),
      __ATOMIC_RELAXED);
  t->write_failed = TRUE;
  g_warning ("stageprof: writing trace file \"%s\" failed: %s; the trace "
      "ends at its last whole event (append \"]\" to read it) and the "
      "events from here on are lost (counted when the trace closes)",
      t->path, g_strerror (t->write_errno));
}

/* ---- writer thread ------------------------------------------------------- */

/* Records are committed in end-time order (a parent chain ends after the
 * chains it called), so the batch is nearly sorted by start time: insertion
 * sort costs O(n * nesting depth). Equal starts put the longer (enclosing)
 * slice first. */
static void
sp_sort_batch (GArray * a)
{
  SpRecord *r = (SpRecord *) a->data;
  guint i, j;

  /* A nest of chains ends innermost first: its slices come in runs of
   * strictly decreasing start. Reversing those runs first spares the
   * insertion sort most of its moves; no two records of such a run compare
   * equal, so the result is the same. */
  for (i = 0; i + 1 < a->len;) {
    guint k = i + 1;

    while (k < a->len && r[k].ts < r[k - 1].ts)
      k++;
    for (j = k - 1; i < j; i++, j--) {
      SpRecord x = r[i];
      r[i] = r[j];
      r[j] = x;
    }
    i = k;
  }
  for (i = 1; i < a->len; i++) {
    SpRecord x = r[i];
    for (j = i; j > 0 && (r[j - 1].ts > x.ts || (r[j - 1].ts == x.ts
                && SP_REC_HAS_DUR (x.kind) && SP_REC_HAS_DUR (r[j - 1].kind)
                && r[j - 1].a < x.a)); j--)
      r[j] = r[j - 1];
    r[j] = x;
  }
}

/* Events of a thread must come out in ts order, but a slice is recorded
 * when it ends, after the slices it encloses (which start later). So the
 * writer keeps each thread's records sorted in `pending` and writes only
 * those starting more than SP_HOLD_NS before the latest end seen on that
 * thread: a slice recorded later (ending later) that starts before them
 * would have to last longer than SP_HOLD_NS. A thread that recorded nothing
 * since the last drain, an explicit flush and the end of the trace write
 * everything. So: per-thread ts order holds for slices shorter than 100 ms;
 * a longer slice, or one still open across sp_trace_flush(), may be written
 * after slices it encloses (viewers sort by ts anyway). */
static void
sp_drain_thread (SpTrace * t, SpThreadBuf * tb, gboolean all)
{
  GArray *batch;
  SpRecord *r;
  guint i, old_len, cut;
  guint64 n_ev;

  if (!tb->pending)
    tb->pending = g_array_new (FALSE, FALSE, sizeof (SpRecord));
  batch = tb->pending;
  old_len = batch->len;
  for (;;) {
    SpChunk *c = tb->rchunk, *next;
    guint n = __atomic_load_n (&c->n, __ATOMIC_ACQUIRE);

    if (n > tb->ridx)
      g_array_append_vals (batch, &c->recs[tb->ridx], n - tb->ridx);
    tb->ridx = n;
    if (n < SP_CHUNK_RECORDS)
      break;
    next = __atomic_load_n (&c->next, __ATOMIC_ACQUIRE);
    if (!next)
      break;
    tb->rchunk = next;
    tb->ridx = 0;
    sp_pool_put (t, c);
  }

  r = (SpRecord *) batch->data;
  for (i = old_len; i < batch->len; i++) {
    guint64 end = r[i].ts + (SP_REC_HAS_DUR (r[i].kind) ? r[i].a : 0);
    tb->max_end = MAX (tb->max_end, end);
  }
  if (batch->len == old_len)
    all = TRUE;
  sp_sort_batch (batch);
  r = (SpRecord *) batch->data;

  cut = batch->len;
  if (!all) {
    guint64 w = tb->max_end > SP_HOLD_NS ? tb->max_end - SP_HOLD_NS : 0;
    for (cut = 0; cut < batch->len && r[cut].ts < w; cut++);
  }
  for (i = 0, n_ev = 0; i < cut; i++) {
    sp_format_record (t, &r[i]);
    n_ev += r[i].kind == SP_REC_COUNTER ? 2 : 1;   /* buffers, bytes */
  }
  g_array_remove_range (batch, 0, cut);
  __atomic_fetch_add (&t->events, n_ev, __ATOMIC_RELAXED);
}

static void
sp_drain (SpTrace * t, gboolean all)
{
  GPtrArray *meta;
  guint i;

  g_mutex_lock (&t->lock);
  g_ptr_array_set_size (t->snap, 0);
  for (i = 0; i < t->tbs->len; i++)
    g_ptr_array_add (t->snap, t->tbs->pdata[i]);
  meta = t->meta;
  t->meta = g_ptr_array_new_with_free_func (g_free);
  g_mutex_unlock (&t->lock);

  for (i = 0; i < meta->len; i++) {
    const gchar *ev = meta->pdata[i];
    gchar *sep = sp_reserve (t, 1);
    if (sp_put_sep (t, sep) != sep)
      t->olen++;
    sp_append_raw (t, ev, strlen (ev));
  }
  g_ptr_array_free (meta, TRUE);

  for (i = 0; i < t->snap->len; i++) {
    SpThreadBuf *tb = t->snap->pdata[i];
    /* Read `dead` before draining: then the drain sees its last record. */
    gboolean dead = __atomic_load_n (&tb->dead, __ATOMIC_ACQUIRE);

    sp_drain_thread (t, tb, all || dead);
    if (dead) {
      sp_pool_put (t, tb->rchunk);
      tb->rchunk = NULL;
      g_array_free (tb->pending, TRUE);
      tb->pending = NULL;
      g_mutex_lock (&t->lock);
      t->dropped_dead += __atomic_load_n (&tb->dropped, __ATOMIC_RELAXED);
      g_ptr_array_remove_fast (t->tbs, tb);
      g_mutex_unlock (&t->lock);
      sp_thread_buf_unref (tb);
    }
  }
  sp_write_out (t);
}

static gpointer
sp_writer_thread (gpointer data)
{
  SpTrace *t = data;

  g_mutex_lock (&t->lock);
  for (;;) {
    gint64 deadline = g_get_monotonic_time () + SP_WRITER_PERIOD_US;
    guint64 req;
    gboolean stop;

    while (!t->stop && t->flush_req == t->flush_done)
      if (!g_cond_wait_until (&t->wake, &t->lock, deadline))
        break;
    req = t->flush_req;
    stop = t->stop;
    g_mutex_unlock (&t->lock);

    /* A flush or the end writes everything; a periodic drain holds back
     * what may still be preceded by a slice not yet recorded. */
    sp_drain (t, stop || req != t->flush_done);

    g_mutex_lock (&t->lock);
    t->flush_done = req;
    g_cond_broadcast (&t->flushed);
    if (stop)
      break;
  }
  g_mutex_unlock (&t->lock);
  return NULL;
}

/* ---- public, cold path --------------------------------------------------- */

SpTrace *
sp_trace_new (const gchar * path, GError ** error)
{
  SpTrace *t;
  int fd;

  g_return_val_if_fail (path != NULL, NULL);

  /* Read-write: write-trace copies from this descriptor, whatever happens
   * to the path meanwhile. */
  fd = sp_file_open_stream (path, "trace file", error);
  if (fd < 0)
    return NULL;

  t = g_new0 (SpTrace, 1);
  t->id = __atomic_fetch_add (&sp_next_trace_id, 1, __ATOMIC_RELAXED);
  t->path = g_strdup (path);
  t->fd = fd;
  g_mutex_init (&t->lock);
  g_cond_init (&t->wake);
  g_cond_init (&t->flushed);
  t->tbs = g_ptr_array_new ();
  t->meta = g_ptr_array_new_with_free_func (g_free);
  g_mutex_init (&t->pool_lock);
  t->max_chunks = SP_TRACE_MAX_BYTES / sizeof (SpChunk);
  t->ocap = SP_OUT_BUF_BYTES;
  t->obuf = g_malloc (t->ocap);
  t->first = TRUE;
  t->names = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL,
      sp_name_free);
  t->snap = g_ptr_array_new ();

  sp_append_raw (t, "[\n", 2);
  sp_write_out (t);
  if (t->write_failed) {
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (t->write_errno),
        "Cannot write trace file \"%s\": %s", path,
        g_strerror (t->write_errno));
    t->writer = NULL;
    sp_trace_free (t);
    return NULL;
  }

  t->writer = g_thread_new ("sptrace-writer", sp_writer_thread, t);
  return t;
}

static void
sp_queue_meta (SpTrace * t, GString * ev)
{
  g_mutex_lock (&t->lock);
  g_ptr_array_add (t->meta, g_string_free (ev, FALSE));
  g_mutex_unlock (&t->lock);
}

void
sp_trace_process_name (SpTrace * t, guint pid, const gchar * name)
{
  GString *ev = g_string_new ("{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":");

  g_string_append_printf (ev, "%u", pid);
  g_string_append (ev, ",\"args\":{\"name\":\"");
  stage_json_escape (ev, name);
  g_string_append (ev, "\"}}\n");
  sp_queue_meta (t, ev);
}

void
sp_trace_thread_name (SpTrace * t, guint pid, guint64 tid, const gchar * name)
{
  GString *ev = g_string_new ("{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":");

  g_string_append_printf (ev, "%u", pid);
  g_string_append (ev, ",\"tid\":");
  g_string_append_printf (ev, "%" G_GUINT64_FORMAT, tid);
  g_string_append (ev, ",\"args\":{\"name\":\"");
  stage_json_escape (ev, name);
  g_string_append (ev, "\"}}\n");
  sp_queue_meta (t, ev);
}

void
sp_trace_metadata (SpTrace * t, const gchar * event, gboolean is_clock)
{
  g_mutex_lock (&t->lock);
  if (!is_clock || !t->has_clock)
    g_ptr_array_add (t->meta, g_strdup (event));
  if (is_clock)
    t->has_clock = TRUE;
  g_mutex_unlock (&t->lock);
}

gboolean
sp_trace_has_clock (SpTrace * t)
{
  gboolean res;

  g_mutex_lock (&t->lock);
  res = t->has_clock;
  g_mutex_unlock (&t->lock);
  return res;
}

void
sp_trace_flush (SpTrace * t)
{
  guint64 mine;

  g_mutex_lock (&t->lock);
  mine = ++t->flush_req;
  g_cond_signal (&t->wake);
  while (t->flush_done < mine)
    g_cond_wait (&t->flushed, &t->lock);
  g_mutex_unlock (&t->lock);
}

/* The copy goes to a temporary file beside `path`, renamed over it when
 * complete: never a half-written copy, never through a symlink, and never
 * onto the live trace itself (which it would truncate while reading). */
gboolean
sp_trace_write_copy (SpTrace * t, const gchar * path, GError ** error)
{
  struct stat live, dst;
  guint64 left, pos = 0;
  gchar buf[65536];
  SpFileReplace *out;
  int err = 0;

  if (fstat (t->fd, &live) == 0 && stat (path, &dst) == 0
      && live.st_dev == dst.st_dev && live.st_ino == dst.st_ino) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_EXIST,
        "\"%s\" is the trace being recorded; write the copy to another "
        "path", path);
    return FALSE;
  }
  out = sp_file_replace_begin (path, "trace copy", error);
  if (!out)
    return FALSE;

  sp_trace_flush (t);
  /* Everything up to `bytes` is whole lines, whatever the writer does next. */
  left = __atomic_load_n (&t->bytes, __ATOMIC_RELAXED);
  while (left > 0 && !err) {
    gssize got = pread (t->fd, buf, MIN (left, sizeof (buf)), (off_t) pos);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0) {
      err = got < 0 ? errno : EIO;
      break;
    }
    if (!sp_file_replace_write (out, buf, got))
      break;
    left -= got;
    pos += got;
  }
  if (err) {
    sp_file_replace_abort (out);
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (err),
        "Cannot read back trace file \"%s\": %s", t->path, g_strerror (err));
    return FALSE;
  }
  sp_file_replace_write (out, "]\n", 2);
  return sp_file_replace_commit (out, error);
}

guint64
sp_trace_get_dropped (SpTrace * t)
{
  guint64 n;
  guint i;

  g_mutex_lock (&t->lock);
  n = t->dropped_dead;
  for (i = 0; i < t->tbs->len; i++)
    n += __atomic_load_n (&((SpThreadBuf *) t->tbs->pdata[i])->dropped,
        __ATOMIC_RELAXED);
  g_mutex_unlock (&t->lock);
  return n;
}

guint64
sp_trace_get_events_written (SpTrace * t)
{
  guint64 e = __atomic_load_n (&t->events, __ATOMIC_RELAXED);
  guint64 l = __atomic_load_n (&t->lost, __ATOMIC_RELAXED);

  return e > l ? e - l : 0;
}

guint64
sp_trace_get_lost (SpTrace * t)
{
  return __atomic_load_n (&t->lost, __ATOMIC_RELAXED);
}

guint64
sp_trace_get_bytes_written (SpTrace * t)
{
  return __atomic_load_n (&t->bytes, __ATOMIC_RELAXED);
}

void
sp_trace_set_max_bytes (SpTrace * t, gsize max_bytes)
{
  g_mutex_lock (&t->pool_lock);
  t->max_chunks = MAX (max_bytes / sizeof (SpChunk), 1);
  g_mutex_unlock (&t->pool_lock);
}

gsize
sp_trace_get_allocated_bytes (SpTrace * t)
{
  gsize n;

  g_mutex_lock (&t->pool_lock);
  n = t->n_chunks * sizeof (SpChunk);
  g_mutex_unlock (&t->pool_lock);
  return n;
}

/* A trace none of which could be written (a disk with no free byte) is
 * no trace: the empty file goes, if the path still names it. */
static void
sp_trace_remove_if_empty (SpTrace * t)
{
  struct stat fs, ps;

  if (!t->write_failed || __atomic_load_n (&t->bytes, __ATOMIC_RELAXED) > 0
      || fstat (t->fd, &fs) != 0 || !S_ISREG (fs.st_mode) || fs.st_size != 0
      || lstat (t->path, &ps) != 0 || ps.st_dev != fs.st_dev
      || ps.st_ino != fs.st_ino)
    return;
  if (unlink (t->path) == 0)
    g_warning ("stageprof: no byte of trace file \"%s\" could be written: "
        "the empty file was removed", t->path);
}

void
sp_trace_free (SpTrace * t)
{
  guint64 dropped;
  guint i;

  if (t == NULL)
    return;

  if (t->writer) {
    g_mutex_lock (&t->lock);
    t->stop = TRUE;
    g_cond_signal (&t->wake);
    g_mutex_unlock (&t->lock);
    g_thread_join (t->writer);

    /* "]" alone first: if only one byte fits, the file is still whole. */
    sp_append_raw (t, "]", 1);
    sp_write_out (t);
    if (!t->write_failed) {
      sp_append_raw (t, "\n", 1);
      sp_write_out (t);
    }
    if (t->write_failed)
      g_warning ("stageprof: trace file \"%s\" is incomplete: %"
          G_GUINT64_FORMAT " events were lost (%s); it holds whole events "
          "only: append \"]\" if it lacks one to read it", t->path, t->lost,
          g_strerror (t->write_errno));
  }
  sp_trace_remove_if_empty (t);
  close (t->fd);

  dropped = sp_trace_get_dropped (t);
  if (dropped > 0)
    g_warning ("stageprof: the trace writer fell behind; %" G_GUINT64_FORMAT
        " events were dropped from \"%s\"", dropped, t->path);

  /* Threads still alive keep their SpThreadBuf (the TLS reference) until
   * they exit or record into another trace; the chunks go now. */
  for (i = 0; i < t->tbs->len; i++) {
    SpThreadBuf *tb = t->tbs->pdata[i];
    g_free (tb->rchunk);
    tb->rchunk = tb->cur = NULL;
    if (tb->pending)
      g_array_free (tb->pending, TRUE);
    tb->pending = NULL;
    g_atomic_int_set (&tb->trace_gone, 1);
    sp_thread_buf_unref (tb);
  }
  while (t->pool) {
    SpChunk *c = t->pool;
    t->pool = c->next;
    g_free (c);
  }

  g_ptr_array_free (t->tbs, TRUE);
  g_ptr_array_free (t->meta, TRUE);
  g_ptr_array_free (t->snap, TRUE);
  g_hash_table_destroy (t->names);
  g_free (t->obuf);
  g_mutex_clear (&t->lock);
  g_mutex_clear (&t->pool_lock);
  g_cond_clear (&t->wake);
  g_cond_clear (&t->flushed);
  g_free (t->path);
  g_free (t);
}
