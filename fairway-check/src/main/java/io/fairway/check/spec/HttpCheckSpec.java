package io.fairway.check.spec;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * {@code HTTP_GET} ({@code tls == false}) or {@code SSL_GET} ({@code tls == true}): every url must
 * answer with an accepted status and, if given, a body whose MD5 matches and that matches the url's
 * regex.
 *
 * @param target where to connect
 * @param tls SSL_GET
 * @param urls at least one url
 * @param virtualHost Host header when a url has none; {@code null} sends {@code ip:port} like
 *     keepalived
 * @param sniName TLS server name to send, or {@code null} for no SNI (keepalived's default)
 * @param verifyCertificate verify the server's chain and host name (the SNI name, else the url's
 *     virtualhost, else the IP); keepalived never does, so only with the {@code verify_cert}
 *     extension
 * @param caFile PEM file of trusted CAs for verification (keepalived's {@code SSL { ca }}), or
 *     {@code null} for the JDK's trust store
 * @param http11 send {@code HTTP/1.1} with {@code Connection: close} instead of {@code HTTP/1.0}
 * @param source where the connection leaves from ({@code bindto}, {@code bind_port}, {@code
 *     bind_if}, {@code fwmark})
 * @param timing timing
 * @param fastRecovery keepalived's {@code fast_recovery}: while the checker has not run yet, or is
 *     down with no url known to be failing, fetch the next url at once instead of a {@code
 *     delay_loop} later
 * @param connectionClose send {@code Connection: close} (keepalived's {@code http_protocol 1.0C}
 *     and {@code 1.1})
 */
public record HttpCheckSpec(
    InetSocketAddress target,
    boolean tls,
    List<UrlSpec> urls,
    @Nullable String virtualHost,
    @Nullable String sniName,
    boolean verifyCertificate,
    @Nullable Path caFile,
    boolean http11,
    CheckSource source,
    CheckTiming timing,
    boolean fastRecovery,
    boolean connectionClose)
    implements CheckSpec {
  public HttpCheckSpec {
    Objects.requireNonNull(target, "target");
    Objects.requireNonNull(timing, "timing");
    source = source == null ? CheckSource.NONE : source;
    urls = List.copyOf(urls);
    if (urls.isEmpty()) {
      throw new IllegalArgumentException(
          (tls ? "SSL_GET" : "HTTP_GET") + " needs at least one url");
    }
  }

  /**
   * A check of {@code target} with {@code timing}; the rest defaults as keepalived does: plain
   * HTTP/1.0 from wherever the kernel chooses, no SNI, no verification. At least one url must be
   * added before {@link Builder#build()}.
   */
  public static Builder builder(InetSocketAddress target, CheckTiming timing) {
    return new Builder(target, timing);
  }

  /** A builder holding this check's values, to change some of them. */
  public Builder toBuilder() {
    return new Builder(target, timing)
        .tls(tls)
        .urls(urls)
        .virtualHost(virtualHost)
        .sniName(sniName)
        .verifyCertificate(verifyCertificate)
        .caFile(caFile)
        .http11(http11)
        .source(source)
        .fastRecovery(fastRecovery)
        .connectionClose(connectionClose);
  }

  /** The same check with {@code fast_recovery} on or off. */
  public HttpCheckSpec withFastRecovery(boolean on) {
    return toBuilder().fastRecovery(on).build();
  }

  /**
   * The same check with or without {@code Connection: close} ({@code http_protocol 1.0C} is 1.0
   * with it).
   */
  public HttpCheckSpec withConnectionClose(boolean on) {
    return toBuilder().connectionClose(on).build();
  }

  /** Builds an {@link HttpCheckSpec}; each setter is the record component of the same name. */
  public static final class Builder {
    private InetSocketAddress target;
    private CheckTiming timing;
    private boolean tls;
    private List<UrlSpec> urls = List.of();
    private @Nullable String virtualHost;
    private @Nullable String sniName;
    private boolean verifyCertificate;
    private @Nullable Path caFile;
    private boolean http11;
    private CheckSource source = CheckSource.NONE;
    private boolean fastRecovery;

    /** Null: follow {@link #http11}, as {@code http_protocol 1.0} and {@code 1.1} do. */
    private @Nullable Boolean connectionClose;

    private Builder(InetSocketAddress target, CheckTiming timing) {
      this.target = target;
      this.timing = timing;
    }

    public Builder target(InetSocketAddress t) {
      this.target = t;
      return this;
    }

    public Builder timing(CheckTiming t) {
      this.timing = t;
      return this;
    }

    /** {@code SSL_GET} instead of {@code HTTP_GET}. */
    public Builder tls(boolean on) {
      this.tls = on;
      return this;
    }

    public Builder urls(List<UrlSpec> u) {
      this.urls = List.copyOf(u);
      return this;
    }

    public Builder urls(UrlSpec... u) {
      return urls(List.of(u));
    }

    public Builder virtualHost(@Nullable String host) {
      this.virtualHost = host;
      return this;
    }

    public Builder sniName(@Nullable String name) {
      this.sniName = name;
      return this;
    }

    public Builder verifyCertificate(boolean on) {
      this.verifyCertificate = on;
      return this;
    }

    public Builder caFile(@Nullable Path file) {
      this.caFile = file;
      return this;
    }

    /** HTTP/1.1; unless {@link #connectionClose} says otherwise, also {@code Connection: close}. */
    public Builder http11(boolean on) {
      this.http11 = on;
      return this;
    }

    public Builder source(CheckSource s) {
      this.source = s;
      return this;
    }

    public Builder fastRecovery(boolean on) {
      this.fastRecovery = on;
      return this;
    }

    /** Overrides the default of {@code Connection: close} exactly with HTTP/1.1. */
    public Builder connectionClose(boolean on) {
      this.connectionClose = on;
      return this;
    }

    /**
     * The spec, with the defaults for what was not set.
     *
     * @throws IllegalArgumentException no url was given
     */
    public HttpCheckSpec build() {
      return new HttpCheckSpec(
          target,
          tls,
          urls,
          virtualHost,
          sniName,
          verifyCertificate,
          caFile,
          http11,
          source,
          timing,
          fastRecovery,
          connectionClose != null ? connectionClose : http11);
    }
  }

  @Override
  public String describe() {
    return (tls ? "SSL_GET " : "HTTP_GET ") + Targets.format(target) + source.describe();
  }
}
