/**
 * The HTTP/1.1 reverse proxy of {@code lb_kind HTTP} services: each request is scheduled on its
 * own, forwarded over a pooled keep-alive backend connection, and its response streamed back.
 *
 * <h2>Why its own parser</h2>
 *
 * <p>A proxy sits between two parsers, and a request the two frame differently can smuggle another
 * one past the proxy. So the decoders here ({@link io.fairway.proxy.http.StrictRequestDecoder},
 * {@link io.fairway.proxy.http.ResponseDecoder}, {@link io.fairway.proxy.http.HeadParser}) refuse
 * rather than repair what is ambiguous (bare LF, obs-fold, a second Content-Length, Content-Length
 * with Transfer-Encoding on a request...), as HAProxy and nginx do, and once framing is in doubt
 * nothing later on the connection is trusted (where Fairway still answers differently from them is
 * listed in docs/proxy.md). The decoders also keep the hot path cheap: a head is parsed in place in
 * one array and rewritten by byte copies ({@link io.fairway.proxy.http.HeadWriter}), bodies pass as
 * slices of what was read, with no header map and no re-encoding per request.
 *
 * <h2>Connections and exchanges</h2>
 *
 * <p>{@link io.fairway.proxy.http.HttpFrontend} is the HTTP/1.1 connection: heads, keep-alive,
 * pipelining order, half-close, the upgrade tunnel. Each request it reads becomes an {@link
 * io.fairway.proxy.http.Exchange} (server, lease, backend connection, retries, deadlines, an
 * explicit state), which reaches its client only through {@link io.fairway.proxy.http.ClientSide},
 * so that another protocol's streams (HTTP/2) can carry exchanges too.
 *
 * <h2>HTTP/2 backends</h2>
 *
 * <p>A real server with {@code http2} gets each exchange as a stream of one multiplexed connection
 * per event loop ({@link io.fairway.proxy.http.H2Link}). The stream's pipeline turns the HTTP/1.1
 * request the exchange writes into frames ({@link io.fairway.proxy.http.H2RequestWriter}) and the
 * frames of the response into what {@link io.fairway.proxy.http.ResponseDecoder} would have made of
 * an HTTP/1.1 response ({@link io.fairway.proxy.http.H2ResponseReader}), so the exchange drives a
 * stream exactly as a pooled connection: retries, deadlines, backpressure (the stream's writability
 * and read switch are its flow-control windows), counters and the access log stay one code path.
 * That costs a head parse per request on the way out; a second exchange written against frames
 * would have cost a second proxy to keep in step with the first.
 *
 * <h2>What else lives here</h2>
 *
 * <p>What a request head gives a hashing director as its key ({@link
 * io.fairway.proxy.table.RequestKey} says where to look), and the per-server HTTP state the table's
 * real servers carry but only HTTP uses: idle backend connections ({@link
 * io.fairway.proxy.http.BackendPool}) and HTTP/2 connections ({@link
 * io.fairway.proxy.http.H2Links}), each attached to its server ({@link
 * io.fairway.proxy.table.BackendAttachment}) so that the table never depends on HTTP. The response
 * counters ({@link io.fairway.proxy.table.HttpStats}) are the table's: it reads them for the
 * metrics. A protocol switch (WebSocket, {@code Connection: upgrade}) leaves HTTP for good: the
 * exchange becomes two L4 relays ({@code io.fairway.proxy.l4}).
 */
@NullMarked
package io.fairway.proxy.http;

import org.jspecify.annotations.NullMarked;
