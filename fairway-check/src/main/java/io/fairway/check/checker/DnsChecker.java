package io.fairway.check.checker;

import io.fairway.check.CheckConfigException;
import io.fairway.check.spec.DnsCheckSpec;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.DatagramChannel;
import io.netty.handler.codec.dns.DatagramDnsQuery;
import io.netty.handler.codec.dns.DatagramDnsQueryEncoder;
import io.netty.handler.codec.dns.DatagramDnsResponse;
import io.netty.handler.codec.dns.DatagramDnsResponseDecoder;
import io.netty.handler.codec.dns.DefaultDnsQuestion;
import io.netty.handler.codec.dns.DnsRecordType;
import io.netty.handler.codec.dns.DnsResponseCode;
import io.netty.handler.codec.dns.DnsSection;
import io.netty.handler.timeout.ReadTimeoutHandler;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * DNS_CHECK: one UDP query with recursion desired and a random id; success is a reply with the same
 * id and RCODE NOERROR, as keepalived decides it (the answer count is not looked at).
 */
final class DnsChecker implements Checker {
  private final InetSocketAddress target;
  private final Bootstrap bootstrap;
  private final InetSocketAddress local;
  private final Duration timeout;
  private final DnsRecordType type;
  private final String name;

  DnsChecker(
      DnsCheckSpec spec,
      InetSocketAddress target,
      EventLoopGroup group,
      Class<? extends DatagramChannel> channel) {
    this.target = target;
    this.timeout = spec.timing().connectTimeout();
    this.type = recordType(spec);
    this.name = spec.name().endsWith(".") ? spec.name() : spec.name() + ".";
    this.bootstrap = Resolved.bootstrap(group, channel, spec.source(), target);
    // Unconnected, as keepalived's DNS check: bound to the source if there is one, else to any
    // port.
    InetSocketAddress source = spec.source().localAddress(target.getAddress());
    this.local = source != null ? source : new InetSocketAddress(0);
  }

  private static DnsRecordType recordType(DnsCheckSpec spec) {
    try {
      return DnsRecordType.valueOf(spec.type().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new CheckConfigException(spec.describe() + ": unknown DNS record type " + spec.type());
    }
  }

  @Override
  public void check(Consumer<CheckResult> done) {
    int id = ThreadLocalRandom.current().nextInt(1, 0x10000);
    Reply reply = new Reply(id, done);
    bootstrap
        .clone()
        .handler(
            new ChannelInitializer<>() {
              @Override
              protected void initChannel(Channel ch) {
                ch.pipeline()
                    .addLast(
                        new ReadTimeoutHandler(timeout.toMillis(), TimeUnit.MILLISECONDS),
                        new DatagramDnsQueryEncoder(),
                        new DatagramDnsResponseDecoder(),
                        reply);
              }
            })
        .bind(local)
        .addListener(
            (ChannelFuture f) -> {
              if (!f.isSuccess()) {
                reply.finish(CheckResult.fail(Failures.describe(f.cause(), timeout)));
                return;
              }
              DatagramDnsQuery q = new DatagramDnsQuery(null, target, id);
              q.setRecursionDesired(true);
              q.addRecord(DnsSection.QUESTION, new DefaultDnsQuestion(name, type));
              f.channel()
                  .writeAndFlush(q)
                  .addListener(
                      (ChannelFuture w) -> {
                        if (!w.isSuccess()) {
                          DatagramClose.later(w.channel());
                          reply.finish(
                              CheckResult.fail(
                                  "send failed: " + Failures.describe(w.cause(), timeout)));
                        }
                      });
            });
  }

  private final class Reply extends SimpleChannelInboundHandler<DatagramDnsResponse> {
    private final int id;
    private final Consumer<CheckResult> done;

    Reply(int id, Consumer<CheckResult> done) {
      this.id = id;
      this.done = new FirstResult(done);
    }

    void finish(CheckResult r) {
      done.accept(r);
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, DatagramDnsResponse res) {
      if (res.id() != id || !res.sender().equals(target)) {
        return; // not ours: keep waiting for the real answer until the timeout
      }
      DatagramClose.later(ctx.channel());
      if (DnsResponseCode.NOERROR.equals(res.code())) {
        finish(
            CheckResult.ok(
                type.name()
                    + " "
                    + name
                    + ": NOERROR, "
                    + res.count(DnsSection.ANSWER)
                    + " answer(s)"));
      } else {
        finish(CheckResult.fail(type.name() + " " + name + ": " + res.code()));
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      DatagramClose.later(ctx.channel());
      finish(CheckResult.fail(Failures.describe(cause, timeout)));
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      finish(CheckResult.fail("no answer"));
    }
  }

  @Override
  public Duration deadline() {
    return timeout.plusSeconds(1);
  }
}
