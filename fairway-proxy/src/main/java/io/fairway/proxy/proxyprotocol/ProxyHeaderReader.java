package io.fairway.proxy.proxyprotocol;

import io.fairway.proxy.RateLimitedLog;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.handler.codec.haproxy.HAProxyMessage;
import io.netty.handler.codec.haproxy.HAProxyMessageDecoder;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.LoggerFactory;

/**
 * {@code proxy_protocol accept}: holds a client connection back from its frontend until a PROXY v1
 * or v2 header has been read, then records the client it names ({@link ClientAddress}) and lets the
 * frontend see the connection become active, with whatever followed the header as its first read.
 *
 * <p>State: WAITING (the frontend has seen nothing) until the header is read (ACCEPTED: this
 * handler leaves the pipeline) or the connection is refused (REFUSED: closed, and the frontend
 * never sees it). A connection without a valid header within {@link #deadline(Duration)} is
 * refused, and so is one whose header is not PROXY, is malformed, or grows past the size bound: v1
 * is at most 107 bytes (the specification's), v2 at most {@link #MAX_TLV_BYTES} of TLVs beyond its
 * addresses. TLVs are parsed by Netty's decoder and dropped unread: nothing here depends on them.
 */
public final class ProxyHeaderReader extends ChannelInboundHandlerAdapter {
  /** TLV bytes a v2 header may carry: what AWS, GCP and HAProxy send fits many times over. */
  public static final int MAX_TLV_BYTES = 2048;

  /** The longest a client may take to send its header (shorter if the request-head timeout is). */
  public static final Duration MAX_DEADLINE = Duration.ofSeconds(5);

  private static final RateLimitedLog warnings =
      new RateLimitedLog(
          LoggerFactory.getLogger(ProxyHeaderReader.class), java.time.Duration.ofSeconds(10));

  private enum State {
    WAITING,
    ACCEPTED,
    REFUSED
  }

  private final ProxyProtocolStats stats;
  private final Duration deadline;
  private final Object service;
  private State state = State.WAITING;
  private boolean autoReadAfter;
  private @Nullable ScheduledFuture<?> timer;

  private ProxyHeaderReader(ProxyProtocolStats stats, Duration deadline, Object service) {
    this.stats = stats;
    this.deadline = deadline;
    this.service = service;
  }

  /**
   * Puts the header's decoder and this reader in front of {@code p}'s frontend.
   *
   * @param service names the service in warnings
   */
  public static void install(
      ChannelPipeline p, ProxyProtocolStats stats, Duration requestHead, Object service) {
    p.addFirst(new ProxyHeaderReader(stats, deadline(requestHead), service));
    p.addFirst(new HAProxyMessageDecoder(MAX_TLV_BYTES));
  }

  /**
   * The header's deadline: {@link #MAX_DEADLINE}, or the service's request-head timeout if less.
   */
  static Duration deadline(Duration requestHead) {
    return requestHead.compareTo(MAX_DEADLINE) < 0 ? requestHead : MAX_DEADLINE;
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    // Not passed on: the frontend starts when the header names its client. An L4 frontend keeps
    // auto-read off until its backend is connected; the header is read regardless.
    autoReadAfter = ctx.channel().config().isAutoRead();
    timer = ctx.executor().schedule(() -> expire(ctx), deadline.toNanos(), TimeUnit.NANOSECONDS);
    ctx.channel().config().setAutoRead(true);
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (state != State.WAITING || !(msg instanceof HAProxyMessage m)) {
      // Only the decoder's message can come while waiting; after a refusal, nothing matters.
      ReferenceCountUtil.release(msg);
      return;
    }
    ClientAddress client;
    try {
      client = ClientAddress.from(m, ctx.channel());
    } catch (RuntimeException e) {
      refuse(ctx, stats.invalid, "invalid PROXY header: " + e.getMessage());
      return;
    } finally {
      m.release();
    }
    state = State.ACCEPTED;
    Objects.requireNonNull(timer, "armed in channelActive").cancel(false);
    stats.accepted.increment();
    ctx.channel().attr(ClientAddress.KEY).set(client);
    ctx.channel().config().setAutoRead(autoReadAfter);
    ctx.fireChannelActive();
    // What followed the header reaches the frontend when the decoder leaves the pipeline right
    // after this, as the frontend's first read.
    ctx.pipeline().remove(this);
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    // The frontend has not started: nothing of this connection is its business yet.
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (evt instanceof ChannelInputShutdownEvent) {
      if (state == State.WAITING) {
        refuse(ctx, stats.closed, null);
      }
      return;
    }
    ReferenceCountUtil.release(evt);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    // The decoder's HAProxyProtocolException (it has closed the connection already), or a reset.
    if (state == State.WAITING) {
      boolean header = cause instanceof io.netty.handler.codec.DecoderException;
      refuse(
          ctx,
          header ? stats.invalid : stats.closed,
          header ? "no valid PROXY header: " + reason(cause) : null);
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    if (state == State.WAITING) {
      refuse(ctx, stats.closed, null);
    }
    // Not passed on: the frontend never saw this connection become active.
  }

  private void expire(ChannelHandlerContext ctx) {
    if (state == State.WAITING) {
      refuse(ctx, stats.timedOut, "no complete PROXY header within " + deadline);
    }
  }

  private void refuse(
      ChannelHandlerContext ctx,
      java.util.concurrent.atomic.LongAdder counter,
      @Nullable String why) {
    state = State.REFUSED;
    if (timer != null) {
      timer.cancel(false);
    }
    counter.increment();
    if (why != null) {
      warnings.warn(service, why, "from " + ctx.channel().remoteAddress());
    }
    ctx.close();
  }

  private static String reason(Throwable t) {
    Throwable c = t.getCause() != null && t.getMessage() == null ? t.getCause() : t;
    String m = c.getMessage();
    return m == null ? c.getClass().getSimpleName() : m;
  }
}
