/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spendpoint: see spendpoint.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "spendpoint.h"
#include "spmetrics.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <microhttpd.h>

/* A client silent this long is dropped (one that connects and never
 * sends, or never reads its answer). */
#define SP_ENDPOINT_TIMEOUT_S 10
/* Connections at once; more are closed at accept. */
#define SP_ENDPOINT_MAX_CONNECTIONS 256

struct _SpEndpoint
{
  struct MHD_Daemon *daemon;
  SpEndpointSnapshot snapshot;
  gpointer data;
  /* The server thread's own (libmicrohttpd calls the handler from its one
   * polling thread only): the last exposition, and the process CPU time
   * at the start of the stretch that cores_used covers. */
  gchar *text;
  gint64 text_us;
  gint64 cpu_us;
  gdouble cpu_s;
  gdouble cores_used;
};

static GQuark
sp_endpoint_quark (void)
{
  return g_quark_from_static_string ("sp-endpoint");
}

/* "PORT": 1 to 65535, digits only. */
static gboolean
parse_port (const gchar * s, guint16 * port)
{
  guint64 v;
  gchar *end = NULL;

  if (!g_ascii_isdigit (*s))
    return FALSE;
  v = g_ascii_strtoull (s, &end, 10);
  if (*end != '\0' || v < 1 || v > 65535)
    return FALSE;
  *port = (guint16) v;
  return TRUE;
}

/* "HOST:PORT" into a socket address; HOST an IPv4 address, "[IPv6]" or
 * localhost (127.0.0.1). Host names are not looked up: what the endpoint
 * exposes must not depend on a resolver. */
static gboolean
parse_address (const gchar * spec, struct sockaddr_storage *sa,
    socklen_t * len, gboolean * loopback, GError ** err)
{
  const gchar *colon = strrchr (spec, ':');
  gchar *host;
  guint16 port;
  gboolean ok = TRUE;

  memset (sa, 0, sizeof *sa);
  if (colon == NULL || !parse_port (colon + 1, &port)) {
    g_set_error (err, sp_endpoint_quark (), 1, "metrics='%s' is not "
        "HOST:PORT with a port between 1 and 65535 (write "
        "metrics=127.0.0.1:9100)", spec);
    return FALSE;
  }
  host = g_strndup (spec, colon - spec);
  if (host[0] == '[' && g_str_has_suffix (host, "]")) {
    struct sockaddr_in6 *a = (struct sockaddr_in6 *) sa;
    gchar *inner = g_strndup (host + 1, strlen (host) - 2);

    a->sin6_family = AF_INET6;
    a->sin6_port = htons (port);
    ok = inet_pton (AF_INET6, inner, &a->sin6_addr) == 1;
    *len = sizeof *a;
    *loopback = ok && (IN6_IS_ADDR_LOOPBACK (&a->sin6_addr)
        || (IN6_IS_ADDR_V4MAPPED (&a->sin6_addr)
            && a->sin6_addr.s6_addr[12] == 127));
    g_free (inner);
  } else {
    struct sockaddr_in *a = (struct sockaddr_in *) sa;

    a->sin_family = AF_INET;
    a->sin_port = htons (port);
    ok = inet_pton (AF_INET, strcmp (host, "localhost") == 0 ? "127.0.0.1" :
        host, &a->sin_addr) == 1;
    *len = sizeof *a;
    *loopback = ok && (ntohl (a->sin_addr.s_addr) >> 24) == 127;
  }
  if (!ok)
    g_set_error (err, sp_endpoint_quark (), 1, "metrics='%s': '%s' is not "
        "an IP address (write 127.0.0.1:PORT, [::1]:PORT or "
        "localhost:PORT; host names are not looked up)", spec, host);
  g_free (host);
  return ok;
}

/* The listening socket, bound here rather than by libmicrohttpd so that a
 * taken port is reported with its reason. -1 and `err` set on failure. */
static int
listen_on (const gchar * spec, const struct sockaddr_storage *sa,
    socklen_t len, GError ** err)
{
  int fd = socket (sa->ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
      0);
  int one = 1;

  if (fd < 0) {
    g_set_error (err, sp_endpoint_quark (), 2, "metrics=%s: no socket: %s",
        spec, g_strerror (errno));
    return -1;
  }
  /* A restarted process may bind while its old connections linger in
   * TIME_WAIT; a live listener on the port still refuses the bind. */
  setsockopt (fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (bind (fd, (const struct sockaddr *) sa, len) < 0
      || listen (fd, 128) < 0) {
    g_set_error (err, sp_endpoint_quark (), 2, "metrics=%s: cannot listen "
        "there: %s%s", spec, g_strerror (errno), errno == EADDRINUSE ?
        " (another program, or another stageprof, has that port: choose "
        "another)" : "");
    close (fd);
    return -1;
  }
  return fd;
}

/* The process's CPU time (user + system), seconds. */
static gdouble
process_cpu_s (void)
{
  struct timespec ts;

  if (clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
    return -1;
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The process's cores over the last stretch of at least a second. */
static void
update_cores (SpEndpoint * e, gint64 now_us)
{
  gdouble cpu = process_cpu_s ();

  if (cpu < 0)
    return;
  if (e->cpu_us == 0) {
    e->cpu_us = now_us;
    e->cpu_s = cpu;
  } else if (now_us - e->cpu_us >= G_TIME_SPAN_SECOND) {
    e->cores_used = (cpu - e->cpu_s) / ((now_us - e->cpu_us) / 1e6);
    e->cpu_us = now_us;
    e->cpu_s = cpu;
  }
}

static const gchar *
exposition (SpEndpoint * e)
{
  gint64 now = g_get_monotonic_time ();
  GstStructure *s;

  if (e->text && now - e->text_us < SP_ENDPOINT_REUSE_US)
    return e->text;
  update_cores (e, now);
  s = e->snapshot (e->data);
  g_free (e->text);
  e->text = sp_metrics_render (s, e->cores_used);
  e->text_us = now;
  gst_structure_free (s);
  return e->text;
}

static enum MHD_Result
answer (struct MHD_Connection *c, guint status, const gchar * type,
    const gchar * body, const gchar * allow)
{
  /* A copy the response frees: the next scrape may replace `body`. (Not
   * MHD_create_response_from_buffer with MUST_COPY, which libmicrohttpd
   * 1.0 deprecates.) */
  gchar *copy = g_strdup (body);
  struct MHD_Response *r =
      MHD_create_response_from_buffer_with_free_callback (strlen (copy), copy,
      g_free);
  enum MHD_Result ret;

  if (r == NULL) {
    g_free (copy);
    return MHD_NO;
  }
  MHD_add_response_header (r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
  if (allow)
    MHD_add_response_header (r, MHD_HTTP_HEADER_ALLOW, allow);
  ret = MHD_queue_response (c, status, r);
  MHD_destroy_response (r);
  return ret;
}

/* GET or HEAD /metrics; anything else gets its HTTP error (requests that
 * are not HTTP at all libmicrohttpd answers with 400 itself). */
static enum MHD_Result
handle (void *cls, struct MHD_Connection *c, const char *url,
    const char *method, const char *version, const char *upload_data,
    size_t *upload_data_size, void **con_cls)
{
  SpEndpoint *e = cls;

  if (strcmp (method, MHD_HTTP_METHOD_GET) != 0
      && strcmp (method, MHD_HTTP_METHOD_HEAD) != 0)
    return answer (c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain",
        "stageprof: the metrics endpoint takes GET and HEAD only\n",
        "GET, HEAD");
  if (strcmp (url, "/metrics") != 0)
    return answer (c, MHD_HTTP_NOT_FOUND, "text/plain",
        "stageprof: the metrics are at /metrics\n", NULL);
  return answer (c, MHD_HTTP_OK, SP_METRICS_CONTENT_TYPE, exposition (e),
      NULL);
}

SpEndpoint *
sp_endpoint_start (const gchar * spec, gboolean any_address,
    SpEndpointSnapshot snapshot, gpointer data, GError ** err)
{
  struct sockaddr_storage sa;
  socklen_t len = 0;
  gboolean loopback = FALSE;
  SpEndpoint *e;
  int fd;

  if (!parse_address (spec, &sa, &len, &loopback, err))
    return NULL;
  if (!loopback && !any_address) {
    g_set_error (err, sp_endpoint_quark (), 3, "metrics=%s refused: not a "
        "loopback address, and the endpoint has no authentication; to serve "
        "the metrics to other machines, set metrics-any-address=true too",
        spec);
    return NULL;
  }
  fd = listen_on (spec, &sa, len, err);
  if (fd < 0)
    return NULL;
  e = g_new0 (SpEndpoint, 1);
  e->snapshot = snapshot;
  e->data = data;
  e->cores_used = -1;
  /* poll(), not select(): no FD_SETSIZE ceiling on the process's
   * descriptors. The daemon closes `fd` when it stops. */
  e->daemon = MHD_start_daemon (MHD_USE_POLL_INTERNAL_THREAD, 0, NULL, NULL,
      handle, e,
      MHD_OPTION_LISTEN_SOCKET, (MHD_socket) fd,
      MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int) SP_ENDPOINT_TIMEOUT_S,
      MHD_OPTION_CONNECTION_LIMIT, (unsigned int) SP_ENDPOINT_MAX_CONNECTIONS,
      MHD_OPTION_END);
  if (e->daemon == NULL) {
    g_set_error (err, sp_endpoint_quark (), 2, "metrics=%s: the HTTP server "
        "(libmicrohttpd) did not start", spec);
    /* `fd` is left open: whether a failed start closed it is not said,
     * and closing it twice could close another file's descriptor. */
    g_free (e);
    return NULL;
  }
  return e;
}

void
sp_endpoint_stop (SpEndpoint * e)
{
  if (e == NULL)
    return;
  MHD_stop_daemon (e->daemon);
  g_free (e->text);
  g_free (e);
}
