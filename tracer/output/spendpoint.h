/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* spendpoint: stageprof's metrics endpoint (metrics=HOST:PORT), an HTTP
 * server on libmicrohttpd's own thread that answers GET /metrics with
 * spmetrics.h's exposition of a fresh summary.
 *
 * The server thread asks the caller's `snapshot` function for the summary
 * (which copies the recorder's figures under its lock and builds the rows
 * after) and formats it there: streaming threads never wait for a client.
 * Answers given within SP_ENDPOINT_REUSE_US of each other share one
 * summary, so a burst of scrapes costs one. Only loopback addresses are
 * served unless `any_address` is given: the endpoint has no
 * authentication. Built with libmicrohttpd only (meson option `metrics`).
 */
#ifndef __SP_ENDPOINT_H__
#define __SP_ENDPOINT_H__

#include <gst/gst.h>

G_BEGIN_DECLS

#define SP_ENDPOINT_REUSE_US (100 * 1000)

typedef struct _SpEndpoint SpEndpoint;

/* A summary over every pipeline, transfer full; any thread. */
typedef GstStructure *(*SpEndpointSnapshot) (gpointer data);

/* Listens on `spec` ("127.0.0.1:9100", "[::1]:9100", "localhost:9100")
 * and serves until sp_endpoint_stop(). NULL and `err` set when `spec` is
 * malformed, names no loopback address without `any_address`, or the
 * address cannot be bound (the port is taken). */
SpEndpoint *sp_endpoint_start (const gchar * spec, gboolean any_address,
    SpEndpointSnapshot snapshot, gpointer data, GError ** err);
/* Stops the server thread (joined) and closes every connection. */
void sp_endpoint_stop (SpEndpoint * e);

G_END_DECLS

#endif /* __SP_ENDPOINT_H__ */
