/**
 * HTTP/2 toward clients: h2 chosen by ALPN on a TLS listener, h2c by prior knowledge or {@code
 * Upgrade: h2c} on a plain one (a virtual server's {@code alpn h2} outside a {@code tls} block).
 * Each stream's request becomes an {@link io.fairway.proxy.http.Exchange} of the HTTP/1.1 plane,
 * through its {@link io.fairway.proxy.http.ClientSide}, so directors, limits, the queue, retries,
 * timeouts, counters and the access log are the same for both protocols: there is no second proxy
 * here, only a mapping of frames to the exchange's request and of its response to frames.
 *
 * <h2>Why Netty's frame codec and its multiplexer</h2>
 *
 * <p>{@code Http2FrameCodec} does the protocol (HPACK, stream states, flow control windows,
 * SETTINGS, GOAWAY) and already answers the known floods when told the limits: rapid reset
 * (CVE-2023-44487), CONTINUATION floods, control frames queued faster than read, empty DATA frames,
 * resets the client provokes (streams beyond the concurrent limit, malformed requests). What it
 * lacks is added around it: the concurrent-stream limit from the first frame rather than from the
 * client's SETTINGS acknowledgement, counters by kind read from the GOAWAY it sends ({@link
 * io.fairway.proxy.http2.FrameTap}), and a close that does not wait on a client that stopped
 * reading ({@link io.fairway.proxy.http2.Reaper}). {@code Http2MultiplexHandler} gives each stream
 * a child channel, whose read switch and writability are the stream's flow control: an exchange
 * pausing reads of its "client" withholds that stream's WINDOW_UPDATEs, and a stream out of window
 * stops the backend being read, exactly as the TCP connection does for HTTP/1.1, with no code of
 * the exchange aware of streams. Driving the frame codec directly would need that bookkeeping by
 * hand; {@code Http2StreamFrameToHttpObjectCodec} would turn frames into Netty's HTTP objects,
 * which the exchange (built on its own strict parser) does not use.
 *
 * <p>The request is mapped to HTTP/1.1 as RFC 9113 section 8.3 says ({@link
 * io.fairway.proxy.http2.H2Request}), then parsed by the same strict parser as an HTTP/1.1 request,
 * so both protocols refuse the same things, whatever the backend speaks. A backend with {@code
 * http2} gets it as frames again (in {@code io.fairway.proxy.http}); its trailers come back to the
 * stream apart from the body, which is what lets gRPC's status through.
 */
@NullMarked
package io.fairway.proxy.http2;

import org.jspecify.annotations.NullMarked;
