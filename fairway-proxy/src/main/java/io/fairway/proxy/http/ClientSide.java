package io.fairway.proxy.http;

import io.fairway.proxy.table.Lease;
import io.fairway.proxy.table.ProxyBackend;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import java.net.InetSocketAddress;
import org.jspecify.annotations.Nullable;

/**
 * What an {@link Exchange} may do to the client it answers. The HTTP/1.1 connection implements it
 * over its channel; an HTTP/2 stream will implement it over its frames, which is why an exchange
 * never touches the client's pipeline itself. Everything is called on the client's event loop.
 */
public interface ClientSide {
  /**
   * What a server's {@code established} set holds while it serves this client: the connection, or
   * the HTTP/2 stream (closing it ends that exchange only).
   */
  Channel connection();

  /** The client's TCP connection: its TLS and PROXY-protocol state. */
  default Channel socket() {
    return connection();
  }

  ByteBufAllocator alloc();

  EventLoop eventLoop();

  InetSocketAddress remoteAddress();

  /** The client's address as X-Forwarded-For text. */
  byte[] clientIp();

  /** The address the client connected to, as a Host value for a request without one. */
  byte[] hostHeader();

  /**
   * The protocol the client speaks, for the access log ({@code HTTP/2.0}); {@code null}: the
   * request's own version ({@code HTTP/1.1} or {@code HTTP/1.0}).
   */
  default @Nullable String protocol() {
    return null;
  }

  /** The TLS version the client speaks, for the access log; {@code null} without TLS. */
  default @Nullable String tlsVersion() {
    return null;
  }

  /** The server name the client asked for in its TLS handshake; {@code null} without. */
  default @Nullable String sni() {
    return null;
  }

  /** The client is gone or being closed: nothing more is written to it. */
  boolean closed();

  /** Inside a read of the client, whose end flushes the backend: nothing else need. */
  boolean inRead();

  /** A callback from elsewhere (a connect, a retry) runs now: it flushes what it writes. */
  void notInRead();

  /** The backend sent something: the exchange is not idle. */
  void activity();

  /** Writes part of the response; {@link #flush} sends it. */
  void write(Object msg);

  // The response as the exchange hands it over. The defaults frame it as HTTP/1.1 bytes; another
  // protocol (an HTTP/2 stream) maps the parsed head to its own frames instead.

  /**
   * The client frames bodies itself (HTTP/2 DATA frames): a chunked response reaches it as the
   * chunk data alone, and the {@code chunk} flags below are to be ignored.
   */
  default boolean framesBodies() {
    return false;
  }

  /** An interim (1xx) response head. */
  default void interimHead(HttpHead h) {
    write(HeadWriter.response(alloc(), h, false, false, HeadWriter.Connection.UNCHANGED));
  }

  /** The final response head, with how its body goes on. */
  default void responseHead(HttpHead h, ResponseFraming f) {
    write(HeadWriter.response(alloc(), h, f.dechunk(), f.addChunked(), f.connection()));
  }

  /** A slice of the response body; {@code chunk}: the proxy chunks it (close-delimited body). */
  default void responseBody(ByteBuf b, boolean chunk) {
    if (chunk) {
      write(HeadWriter.chunkHeader(alloc(), b.readableBytes()));
      write(b);
      write(Unpooled.wrappedBuffer(HeadWriter.CRLF));
    } else {
      write(b);
    }
  }

  /** The response body ended; {@code chunk}: the proxy chunked it and writes the last chunk. */
  default void responseEnd(boolean chunk) {
    if (chunk) {
      write(Unpooled.wrappedBuffer(HeadWriter.LAST_CHUNK));
    }
  }

  /**
   * The trailer fields of a response from an HTTP/2 backend, before {@link #responseEnd}; only for
   * a client that {@link #framesBodies} (an HTTP/1.1 client gets them in the chunked body).
   */
  default void responseTrailers(io.netty.handler.codec.http2.Http2Headers trailers) {}

  void flush();

  boolean isWritable();

  /** Stops reading the client: the backend cannot take more, or the request is whole. */
  void pauseReading();

  /** Reads the client again, unless it has nothing more to send. */
  void resumeReading();

  /** The exchange ended (answered or not); the client no longer has it in progress. */
  void ended(Exchange e);

  /** A complete response went out: the next request, or the close it asked for. */
  void answered(boolean keepAlive);

  /** Sends an error page of the proxy's own, then closes. */
  void sendErrorAndClose(int status, String detail);

  /**
   * The request's own deadline ({@code grpc-timeout}) passed: a gRPC client gets status
   * DEADLINE_EXCEEDED; others a 504, or the close when the response had started.
   */
  default void deadlineExceeded() {
    sendErrorAndClose(504, "The request's deadline passed.");
  }

  /** Closes once what was written is sent. */
  void close();

  /**
   * The server switched protocols: the connection becomes a byte tunnel to {@code backend}, which
   * then belongs to this client for good.
   */
  void startTunnel(Channel backend, ProxyBackend rs, Lease lease, HttpHead request);
}
