package io.fairway.check.checker;

import io.fairway.check.spec.UdpCheckSpec;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.DatagramPacket;
import io.netty.handler.timeout.ReadTimeoutException;
import io.netty.handler.timeout.ReadTimeoutHandler;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HexFormat;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * UDP_CHECK, as keepalived does it. The socket is connected so the kernel reports an ICMP
 * port-unreachable back to us. Without {@code require_reply}, silence until the timeout is success:
 * many UDP services never answer an arbitrary datagram, and only "nothing listens there" is a
 * certain failure.
 */
final class UdpChecker implements Checker {
  private final UdpCheckSpec spec;
  private final InetSocketAddress target;
  private final Bootstrap bootstrap;
  private final Duration timeout;
  private final byte[] payload;

  UdpChecker(
      UdpCheckSpec spec,
      InetSocketAddress target,
      EventLoopGroup group,
      Class<? extends DatagramChannel> channel) {
    this.spec = spec;
    this.target = target;
    this.timeout = spec.timing().connectTimeout();
    this.payload = HexFormat.of().parseHex(spec.payloadHex());
    this.bootstrap = Resolved.bootstrap(group, channel, spec.source(), target);
  }

  @Override
  public void check(Consumer<CheckResult> done) {
    Reply reply = new Reply(done);
    bootstrap
        .clone()
        .handler(
            new ChannelInitializer<>() {
              @Override
              protected void initChannel(Channel ch) {
                ch.pipeline()
                    .addLast(
                        new ReadTimeoutHandler(timeout.toMillis(), TimeUnit.MILLISECONDS), reply);
              }
            })
        .connect(target)
        .addListener(
            (ChannelFuture f) -> {
              if (!f.isSuccess()) {
                reply.finish(null, CheckResult.fail(Failures.describe(f.cause(), timeout)));
                return;
              }
              f.channel()
                  .writeAndFlush(Unpooled.wrappedBuffer(payload))
                  .addListener(
                      (ChannelFuture w) -> {
                        if (!w.isSuccess()) {
                          reply.finish(
                              w.channel(), CheckResult.fail(Failures.describe(w.cause(), timeout)));
                        }
                      });
            });
  }

  /** keepalived's pattern match: hex digits must match, an X nibble matches anything. */
  static boolean matches(String pattern, ByteBuf data) {
    int n = Math.min(pattern.length() / 2, data.readableBytes());
    for (int i = 0; i < n; i++) {
      int b = data.getUnsignedByte(data.readerIndex() + i);
      if (!nibble(pattern.charAt(2 * i), b >> 4) || !nibble(pattern.charAt(2 * i + 1), b & 0xf)) {
        return false;
      }
    }
    return true;
  }

  private static boolean nibble(char p, int v) {
    return p == 'x' || p == 'X' || Character.digit(p, 16) == v;
  }

  private final class Reply extends SimpleChannelInboundHandler<DatagramPacket> {
    private final Consumer<CheckResult> done;

    Reply(Consumer<CheckResult> done) {
      this.done = new FirstResult(done);
    }

    void finish(@Nullable Channel ch, CheckResult r) {
      if (ch != null) {
        // Not ch.close(): this may run inside the epoll read loop, which would then read a freed
        // fd.
        DatagramClose.later(ch);
      }
      done.accept(r);
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, DatagramPacket p) {
      ByteBuf data = p.content();
      int len = data.readableBytes();
      if (spec.requireReply() == null) {
        finish(ctx.channel(), CheckResult.ok("reply of " + len + " bytes"));
      } else if (len < spec.minReplyLength() || len > spec.maxReplyLength()) {
        finish(
            ctx.channel(),
            CheckResult.fail(
                "reply of "
                    + len
                    + " bytes, expected "
                    + spec.minReplyLength()
                    + ".."
                    + spec.maxReplyLength()));
      } else if (!matches(spec.requireReply(), data)) {
        finish(
            ctx.channel(),
            CheckResult.fail(
                "reply "
                    + HexFormat.of().formatHex(io.netty.buffer.ByteBufUtil.getBytes(data))
                    + " does not match "
                    + spec.requireReply()));
      } else {
        finish(ctx.channel(), CheckResult.ok("reply of " + len + " bytes matches"));
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      if (cause instanceof ReadTimeoutException && spec.requireReply() == null) {
        finish(ctx.channel(), CheckResult.ok("no ICMP error within " + timeout.toMillis() + " ms"));
      } else {
        finish(ctx.channel(), CheckResult.fail(Failures.describe(cause, timeout)));
      }
    }
  }

  @Override
  public Duration deadline() {
    return timeout.plusSeconds(1);
  }
}
