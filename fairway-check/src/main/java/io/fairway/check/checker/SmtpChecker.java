package io.fairway.check.checker;

import io.fairway.check.spec.SmtpCheckSpec;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.LineBasedFrameDecoder;
import io.netty.handler.codec.string.StringDecoder;
import io.netty.handler.codec.string.StringEncoder;
import io.netty.handler.timeout.ReadTimeoutHandler;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * SMTP_CHECK: the conversation keepalived has — a {@code 220} greeting, {@code HELO name} answered
 * by {@code 250}, then {@code QUIT}. Multi-line replies ({@code 220-...}) are read to their last
 * line.
 */
final class SmtpChecker implements Checker {
  private final SmtpCheckSpec spec;
  private final InetSocketAddress target;
  private final Bootstrap bootstrap;
  private final Duration timeout;

  SmtpChecker(
      SmtpCheckSpec spec,
      InetSocketAddress target,
      EventLoopGroup group,
      Class<? extends Channel> channel) {
    this.spec = spec;
    this.target = target;
    this.timeout = spec.timing().connectTimeout();
    this.bootstrap =
        Resolved.bootstrap(group, channel, spec.source(), target)
            .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.max(1, timeout.toMillis()));
  }

  @Override
  public void check(Consumer<CheckResult> done) {
    Conversation c = new Conversation(done);
    bootstrap
        .clone()
        .handler(
            new ChannelInitializer<>() {
              @Override
              protected void initChannel(Channel ch) {
                ch.pipeline()
                    .addLast(
                        new ReadTimeoutHandler(timeout.toMillis(), TimeUnit.MILLISECONDS),
                        new LineBasedFrameDecoder(2048),
                        new StringDecoder(StandardCharsets.US_ASCII),
                        new StringEncoder(StandardCharsets.US_ASCII),
                        c);
              }
            })
        .connect(target)
        .addListener(
            (ChannelFuture f) -> {
              if (!f.isSuccess()) {
                c.finish(CheckResult.fail(Failures.describe(f.cause(), timeout)));
              }
            });
  }

  private final class Conversation extends SimpleChannelInboundHandler<String> {
    private final Consumer<CheckResult> done;
    private boolean greeted;

    Conversation(Consumer<CheckResult> done) {
      this.done = new FirstResult(done);
    }

    void finish(CheckResult r) {
      done.accept(r);
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, String line) {
      String l = line.strip();
      if (l.length() >= 4 && l.charAt(3) == '-') {
        return; // continuation of a multi-line reply
      }
      String code = l.length() >= 3 ? l.substring(0, 3) : l;
      if (!greeted) {
        if (!code.equals("220")) {
          ctx.close();
          finish(CheckResult.fail("greeting \"" + l + "\", expected 220"));
          return;
        }
        greeted = true;
        ctx.writeAndFlush("HELO " + spec.heloName() + "\r\n");
      } else {
        ctx.writeAndFlush("QUIT\r\n").addListener(x -> ctx.close());
        if (code.equals("250")) {
          finish(CheckResult.ok("220 greeting, HELO answered 250"));
        } else {
          finish(CheckResult.fail("HELO answered \"" + l + "\", expected 250"));
        }
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close();
      finish(CheckResult.fail(Failures.describe(cause, timeout)));
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      finish(
          CheckResult.fail(
              greeted ? "connection closed after HELO" : "connection closed before greeting"));
    }
  }

  @Override
  public Duration deadline() {
    return timeout.multipliedBy(2).plusSeconds(1);
  }
}
