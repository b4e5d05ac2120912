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
import io.netty.handler.ssl.SslCloseCompletionEvent;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import io.netty.handler.timeout.ReadTimeoutHandler;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import org.jspecify.annotations.Nullable;

/**
 * HTTP_GET / SSL_GET: each url is fetched on its own connection; a url passes when it answers with
 * an accepted status and, where configured, a body whose MD5 matches and that matches (or, with
 * {@code regex_no_match}, does not match) the url's regex.
 *
 * <p>The engine runs this checker like keepalived does, one url per run ({@link #check(int,
 * Consumer)}), and owns the cursor, the retry count and the delays between urls (see {@code
 * UrlCycle}): which url comes next depends on the verdict, and the verdict lives in the engine.
 * {@link #check(Consumer)} fetches every url in order, for a one-shot check.
 *
 * <p>With {@code verify_cert} (a Fairway extension: keepalived never verifies), the chain is
 * checked against the CA file or the JDK's trust store and the certificate must name the SNI name,
 * else the url's virtualhost, else the address connected to.
 */
final class HttpChecker implements Checker {
  /** Bodies larger than this fail the check rather than exhaust memory; health pages are small. */
  static final int MAX_BODY = 4 * 1024 * 1024;

  private final HttpCheckSpec spec;
  private final InetSocketAddress target;
  private final Bootstrap bootstrap;
  private final @Nullable SslContext ssl;
  private final Duration timeout;
  private final BodyRegex[] regexes;

  HttpChecker(
      HttpCheckSpec spec,
      InetSocketAddress target,
      EventLoopGroup group,
      Class<? extends Channel> channel) {
    this.spec = spec;
    this.target = target;
    this.timeout = spec.timing().connectTimeout();
    this.ssl = spec.tls() ? sslContext(spec) : null;
    this.regexes =
        spec.urls().stream()
            .map(u -> u.regex() == null ? null : new BodyRegex(u.regex()))
            .toArray(BodyRegex[]::new);
    this.bootstrap =
        Resolved.bootstrap(group, channel, spec.source(), target)
            .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.max(1, timeout.toMillis()));
  }

  private static SslContext sslContext(HttpCheckSpec spec) {
    try {
      SslContextBuilder b = SslContextBuilder.forClient();
      if (spec.verifyCertificate()) {
        if (spec.caFile() != null) {
          if (!Files.isReadable(spec.caFile())) {
            throw new CheckConfigException(
                spec.describe() + ": cannot read CA file " + spec.caFile());
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

  /**
   * Every url in order, stopping at the first that fails: a one-shot check of the whole
   * configuration.
   */
  @Override
  public void check(Consumer<CheckResult> done) {
    fetchFrom(0, done);
  }

  private void fetchFrom(int index, Consumer<CheckResult> done) {
    fetch(
        index,
        r -> {
          if (!r.success()) {
            done.accept(r);
          } else if (index + 1 < spec.urls().size()) {
            fetchFrom(index + 1, done);
          } else {
            done.accept(
                spec.urls().size() == 1
                    ? r
                    : CheckResult.ok("all " + spec.urls().size() + " urls ok"));
          }
        });
  }

  /** One url, as keepalived fetches per run; the engine owns the cursor over the urls. */
  @Override
  public void check(int part, Consumer<CheckResult> done) {
    if (part < 0 || part >= spec.urls().size()) {
      done.accept(
          CheckResult.fail("no url number " + part + " (" + spec.urls().size() + " configured)"));
      return;
    }
    fetch(part, done);
  }

  private void fetch(int index, Consumer<CheckResult> done) {
    UrlSpec url = spec.urls().get(index);
    Bootstrap b =
        bootstrap
            .clone()
            .handler(
                new ChannelInitializer<>() {
                  @Override
                  protected void initChannel(Channel ch) {
                    if (ssl != null) {
                      ch.pipeline().addLast(sslHandler(ch, url));
                    }
                    ch.pipeline()
                        .addLast(
                            new ReadTimeoutHandler(timeout.toMillis(), TimeUnit.MILLISECONDS),
                            new HttpClientCodec(),
                            new HttpObjectAggregator(MAX_BODY),
                            new Response(url, index, done));
                  }
                });
    b.connect(target)
        .addListener(
            (ChannelFuture f) -> {
              if (!f.isSuccess()) {
                done.accept(
                    CheckResult.fail(url.path() + ": " + Failures.describe(f.cause(), timeout)));
                return;
              }
              var req =
                  new DefaultFullHttpRequest(
                      spec.http11() ? HttpVersion.HTTP_1_1 : HttpVersion.HTTP_1_0,
                      HttpMethod.GET,
                      url.path());
              req.headers().set(HttpHeaderNames.USER_AGENT, "KeepAliveClient");
              req.headers().set(HttpHeaderNames.HOST, host(url));
              if (spec.connectionClose()) {
                req.headers().set(HttpHeaderNames.CONNECTION, "close");
              }
              f.channel().writeAndFlush(req);
            });
  }

  private SslHandler sslHandler(Channel ch, UrlSpec url) {
    SslContext ssl = Objects.requireNonNull(this.ssl, "only a TLS check makes a handler");
    SslHandler h;
    if (spec.sniName() != null) {
      h = ssl.newHandler(ch.alloc(), spec.sniName(), target.getPort());
    } else if (spec.verifyCertificate()) {
      // The name to verify, but without enable_sni none is sent: keepalived's wire behaviour stays.
      h = ssl.newHandler(ch.alloc(), verifyName(url), target.getPort());
      SSLParameters p = h.engine().getSSLParameters();
      p.setServerNames(List.of());
      h.engine().setSSLParameters(p);
    } else {
      h = ssl.newHandler(ch.alloc());
    }
    h.setHandshakeTimeoutMillis(timeout.toMillis());
    return h;
  }

  /**
   * The name the certificate must carry when there is no SNI name: the virtualhost without port,
   * else the IP.
   */
  private String verifyName(UrlSpec url) {
    String vh = url.virtualHost() != null ? url.virtualHost() : spec.virtualHost();
    if (vh == null) {
      return target.getAddress().getHostAddress();
    }
    if (vh.startsWith("[")) {
      int close = vh.indexOf(']');
      return close > 0 ? vh.substring(1, close) : vh;
    }
    int colon = vh.indexOf(':');
    return colon >= 0 && vh.indexOf(':', colon + 1) < 0 ? vh.substring(0, colon) : vh;
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
    return (target.getAddress() instanceof Inet6Address ? "[" + ip + "]" : ip)
        + ":"
        + target.getPort();
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
        done.accept(
            CheckResult.fail(url.path() + ": bad response: " + res.decoderResult().cause()));
        return;
      }
      int status = res.status().code();
      if (!url.accepts(status)) {
        done.accept(
            CheckResult.fail(
                url.path()
                    + ": status "
                    + status
                    + ", expected "
                    + url.statusCodes().stream()
                        .map(Object::toString)
                        .collect(Collectors.joining(","))));
        return;
      }
      if (url.digest() != null) {
        String got = md5(res.content());
        if (!got.equals(url.digest())) {
          done.accept(
              CheckResult.fail(url.path() + ": digest " + got + ", expected " + url.digest()));
          return;
        }
      }
      if (regexes[index] != null) {
        String why = regexes[index].check(res.content());
        if (why != null) {
          done.accept(CheckResult.fail(url.path() + ": " + why));
          return;
        }
      }
      // The code too: "what does it answer now" is the status view's question.
      done.accept(CheckResult.ok("url " + url.path() + " ok: status " + status));
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
      // The server's close_notify ends the response, as SSL_read's zero return does for keepalived.
      // A
      // TLS 1.3 server may wait for our close_notify before closing TCP, and an HTTP/1.0 body
      // without
      // Content-Length only ends when the connection does: closing here completes it.
      if (evt instanceof SslCloseCompletionEvent) {
        ctx.close();
      }
      ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close();
      if (!answered) {
        answered = true;
        done.accept(CheckResult.fail(url.path() + ": " + describe(cause)));
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

  /**
   * A refused certificate reads as what the operator must fix, not as a generic handshake error.
   */
  private String describe(Throwable cause) {
    if (spec.verifyCertificate()) {
      for (Throwable t = cause; t != null; t = t.getCause()) {
        if (t instanceof CertificateException
            || t instanceof CertPathValidatorException
            || t instanceof CertPathBuilderException) {
          Throwable root = t;
          while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
          }
          return "certificate verify failed: "
              + (root.getMessage() != null ? root.getMessage() : t.getMessage());
        }
        if (t.getCause() == t) {
          break;
        }
      }
    }
    return Failures.describe(cause, timeout);
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
    // connect + TLS handshake + response of one url: the engine fetches one url per attempt.
    return timeout.multipliedBy(2L).plusSeconds(1);
  }
}
