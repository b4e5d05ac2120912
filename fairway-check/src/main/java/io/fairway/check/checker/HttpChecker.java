package io.fairway.check.checker;

import io.fairway.check.CheckConfigException;
import io.fairway.check.spec.HttpCheckSpec;
import io.fairway.check.spec.UrlSpec;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import io.netty.handler.timeout.ReadTimeoutHandler;

import javax.net.ssl.SSLException;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * HTTP_GET / SSL_GET: each url is fetched on its own connection, in order; the check passes when every url
 * answers with an accepted status and, where a digest is configured, a body whose MD5 matches.
 *
 * <p>keepalived checks one url per delay_loop tick; we check them all in one attempt, which reaches the same
 * verdict sooner and keeps the per-checker state machine uniform.
 */
final class HttpChecker implements Checker {
    /** Bodies larger than this fail the check rather than exhaust memory; health pages are small. */
    static final int MAX_BODY = 4 * 1024 * 1024;

    private final HttpCheckSpec spec;
    private final InetSocketAddress target;
    private final Bootstrap bootstrap;
    private final SslContext ssl;
    private final Duration timeout;

    HttpChecker(HttpCheckSpec spec, InetSocketAddress target, EventLoopGroup group,
                Class<? extends Channel> channel) {
        this.spec = spec;
        this.target = target;
        this.timeout = spec.timing().connectTimeout();
        this.ssl = spec.tls() ? sslContext(spec) : null;
        this.bootstrap = new Bootstrap().group(group).channel(channel)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.max(1, timeout.toMillis()));
    }

    private static SslContext sslContext(HttpCheckSpec spec) {
        try {
            SslContextBuilder b = SslContextBuilder.forClient();
            if (spec.verifyCertificate()) {
                if (spec.caFile() != null) {
                    if (!Files.isReadable(spec.caFile())) {
                        throw new CheckConfigException(spec.describe() + ": cannot read CA file " + spec.caFile());
                    }
                    b.trustManager(spec.caFile().toFile());
                }
                b.endpointIdentificationAlgorithm("HTTPS");
            } else {
                // keepalived never validates the server certificate; neither do we unless asked.
                b.trustManager(InsecureTrustManagerFactory.INSTANCE).endpointIdentificationAlgorithm(null);
            }
            return b.build();
        } catch (SSLException | IllegalArgumentException e) {
            throw new CheckConfigException(spec.describe() + ": cannot set up TLS: " + e.getMessage());
        }
    }

    @Override
    public void check(Consumer<CheckResult> done) {
        fetch(0, done);
    }

    private void fetch(int index, Consumer<CheckResult> done) {
        if (index == spec.urls().size()) {
            done.accept(CheckResult.ok(spec.urls().size() == 1 ? "url " + spec.urls().get(0).path() + " ok"
                    : "all " + spec.urls().size() + " urls ok"));
            return;
        }
        UrlSpec url = spec.urls().get(index);
        Bootstrap b = bootstrap.clone().handler(new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                if (ssl != null) {
                    SslHandler h = spec.sniName() != null
                            ? ssl.newHandler(ch.alloc(), spec.sniName(), target.getPort())
                            : spec.verifyCertificate()
                            ? ssl.newHandler(ch.alloc(), target.getHostString(), target.getPort())
                            : ssl.newHandler(ch.alloc());
                    h.setHandshakeTimeoutMillis(timeout.toMillis());
                    ch.pipeline().addLast(h);
                }
                ch.pipeline().addLast(new ReadTimeoutHandler(timeout.toMillis(), TimeUnit.MILLISECONDS),
                        new HttpClientCodec(), new HttpObjectAggregator(MAX_BODY), new Response(url, index, done));
            }
        });
        b.connect(target).addListener((ChannelFuture f) -> {
            if (!f.isSuccess()) {
                done.accept(CheckResult.fail(url.path() + ": " + Failures.describe(f.cause(), timeout)));
                return;
            }
            var req = new DefaultFullHttpRequest(spec.http11() ? HttpVersion.HTTP_1_1 : HttpVersion.HTTP_1_0,
                    HttpMethod.GET, url.path());
            req.headers().set(HttpHeaderNames.USER_AGENT, "KeepAliveClient");
            req.headers().set(HttpHeaderNames.HOST, host(url));
            if (spec.http11()) {
                req.headers().set(HttpHeaderNames.CONNECTION, "close");
            }
            f.channel().writeAndFlush(req);
        });
    }

    /** keepalived's precedence: url virtualhost, then the checker's, then {@code ip:port}. */
    private String host(UrlSpec url) {
        if (url.virtualHost() != null) {
            return url.virtualHost();
        }
        if (spec.virtualHost() != null) {
            return spec.virtualHost();
        }
        String ip = target.getAddress().getHostAddress();
        return (target.getAddress() instanceof Inet6Address ? "[" + ip + "]" : ip) + ":" + target.getPort();
    }

    private final class Response extends SimpleChannelInboundHandler<FullHttpResponse> {
        private final UrlSpec url;
        private final int index;
        private final Consumer<CheckResult> done;
        private boolean answered;

        Response(UrlSpec url, int index, Consumer<CheckResult> done) {
            this.url = url;
            this.index = index;
            this.done = done;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpResponse res) {
            answered = true;
            ctx.close();
            if (!res.decoderResult().isSuccess()) {
                done.accept(CheckResult.fail(url.path() + ": bad response: " + res.decoderResult().cause()));
                return;
            }
            int status = res.status().code();
            if (!url.accepts(status)) {
                done.accept(CheckResult.fail(url.path() + ": status " + status + ", expected "
                        + url.statusCodes().stream().map(Object::toString).collect(Collectors.joining(","))));
                return;
            }
            if (url.digest() != null) {
                String got = md5(res.content());
                if (!got.equals(url.digest())) {
                    done.accept(CheckResult.fail(url.path() + ": digest " + got + ", expected " + url.digest()));
                    return;
                }
            }
            fetch(index + 1, done);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
            if (!answered) {
                answered = true;
                done.accept(CheckResult.fail(url.path() + ": " + Failures.describe(cause, timeout)));
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            if (!answered) {
                answered = true;
                done.accept(CheckResult.fail(url.path() + ": connection closed without a response"));
            }
        }
    }

    static String md5(ByteBuf body) {
        try {
            MessageDigest md = MessageDigest.getInstance("MD5");
            md.update(body.nioBuffer());
            return HexFormat.of().formatHex(md.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public Duration deadline() {
        // connect + TLS handshake + response, per url.
        return timeout.multipliedBy(2L * spec.urls().size()).plusSeconds(1);
    }

}
