package io.fairway.check.checker;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.function.Consumer;

/** TCP_CHECK: success when a connection completes within connect_timeout; the connection is closed at once. */
final class TcpChecker implements Checker {
    /** The connection is closed as soon as it is up; it never carries data. */
    @ChannelHandler.Sharable
    private static final class Nothing extends ChannelInboundHandlerAdapter {
    }

    private static final ChannelHandler NOTHING = new Nothing();
    private final Bootstrap bootstrap;
    private final InetSocketAddress target;
    private final Duration timeout;

    TcpChecker(InetSocketAddress target, Duration timeout, EventLoopGroup group, Class<? extends Channel> channel) {
        this.target = target;
        this.timeout = timeout;
        this.bootstrap = new Bootstrap().group(group).channel(channel)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.max(1, timeout.toMillis()))
                .handler(NOTHING);
    }

    @Override
    public void check(Consumer<CheckResult> done) {
        long start = System.nanoTime();
        bootstrap.connect(target).addListener((ChannelFuture f) -> {
            if (f.isSuccess()) {
                f.channel().close();
                done.accept(CheckResult.ok("connected in " + (System.nanoTime() - start) / 1_000_000 + " ms"));
            } else {
                done.accept(CheckResult.fail(Failures.describe(f.cause(), timeout)));
            }
        });
    }

    @Override
    public Duration deadline() {
        return timeout.plusSeconds(1);
    }
}
