package io.fairway.proxy.http;

import io.fairway.proxy.table.ProxyBackend;
import io.fairway.proxy.tls.TlsHandshakes;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The request's way to the backend: its rewritten head, then its body as it arrives, held while
 * there is no backend connection yet. The head is kept until the exchange ends, so that a retry can
 * send it again; whether it may is decided from what went out ({@link #replayable}).
 *
 * <p>Kept apart from {@link Exchange}, which relays the response: the request side has its own
 * state (what arrived, what went out) and its own backpressure, where the backend being written to
 * decides whether the client is read.
 */
final class RequestForwarder {
  private final ClientSide client;
  private final HttpHead request;
  private final ExchangeDeadlines deadlines;
  private final ExchangeLog trace;

  /** The request head as the backend gets it, kept until the exchange ends for a retry. */
  private @Nullable ByteBuf upstreamHead;

  /** Body slices and END received before the backend connection exists. */
  private final ArrayDeque<Object> pendingBody = new ArrayDeque<>(2);

  private boolean complete;
  private boolean sent;
  private boolean bodyBytes;

  RequestForwarder(
      ClientSide client,
      HttpHead h,
      boolean forwarded,
      ExchangeDeadlines deadlines,
      ExchangeLog trace) {
    this.client = client;
    this.request = h;
    this.deadlines = deadlines;
    this.trace = trace;
    this.upstreamHead =
        HeadWriter.request(
            client.alloc(),
            h,
            client.clientIp(),
            h.hasHost ? null : client.hostHeader(),
            forwarded,
            TlsHandshakes.isTls(client.socket()));
  }

  /** The whole request arrived from the client. */
  boolean complete() {
    return complete;
  }

  /**
   * The request can go to another connection: it is whole, idempotent, and none of its body went
   * out yet.
   */
  boolean replayable() {
    return complete && !bodyBytes && request.idempotent();
  }

  /** Body bytes went to a backend: they cannot be taken back. */
  boolean bodyBytesSent() {
    return bodyBytes;
  }

  /** The request went out completely, so the backend connection may be kept after the response. */
  boolean sent() {
    return sent;
  }

  /** The backend it went to failed: it goes out again on the next one. */
  void unsent() {
    sent = false;
  }

  /**
   * A body slice of the request, or its END; {@code backend} is {@code null} while the connection
   * is not there yet.
   */
  void part(Object msg, @Nullable Channel backend, @Nullable ProxyBackend server) {
    if (msg == StrictRequestDecoder.END) {
      complete = true;
      deadlines.bodyComplete();
      if (request.upgrade) {
        // The decoder holds what follows until the answer; one read's worth at most.
        client.pauseReading();
      }
    } else {
      deadlines.bodyProgress(((ByteBuf) msg).readableBytes());
    }
    if (backend == null) {
      pendingBody.add(msg);
      if (pendingBody.size() > 1) {
        client.pauseReading(); // until the backend connection exists
      }
    } else {
      writeBody(msg, backend, Objects.requireNonNull(server, "a backend is attached once leased"));
    }
  }

  private void writeBody(Object m, Channel backend, ProxyBackend server) {
    if (m == StrictRequestDecoder.END) {
      sent = true;
      if (!client.inRead()) {
        backend.flush();
      }
      deadlines.armResponse();
      return;
    }
    bodyBytes = true;
    // Counted as L4 counts: what goes to the server, by the server's per-server counters.
    int n = ((ByteBuf) m).readableBytes();
    server.inBytes.add(n);
    trace.bytesIn += n;
    backend.write(m, backend.voidPromise());
    if (!backend.isWritable()) {
      client.pauseReading();
    }
  }

  /** Sends the head, and what arrived of the body, on a backend connection just attached. */
  void sendOn(Channel ch, ProxyBackend server) {
    // The kept head itself, not a duplicate: a retry rewinds it (writing moved its reader index).
    ByteBuf head = Objects.requireNonNull(upstreamHead, "kept until the exchange ends");
    head.readerIndex(0);
    server.inBytes.add(head.readableBytes());
    trace.bytesIn += head.readableBytes();
    ch.write(head.retain(), ch.voidPromise());
    Object m;
    while ((m = pendingBody.poll()) != null) {
      writeBody(m, ch, server);
    }
    if (complete && !sent) {
      // A retry of a bodiless request: the original end-of-request was already consumed.
      sent = true;
      deadlines.armResponse();
    }
    if (!client.inRead()) {
      ch.flush();
    }
    if (!complete && ch.isWritable()) {
      client.resumeReading();
    }
  }

  /** Releases what never went out. */
  void releasePending() {
    Object m;
    while ((m = pendingBody.poll()) != null) {
      ReferenceCountUtil.release(m);
    }
  }

  /** Releases the kept head: no retry will need it. */
  void releaseHead() {
    if (upstreamHead != null) {
      upstreamHead.release();
      upstreamHead = null;
    }
  }
}
