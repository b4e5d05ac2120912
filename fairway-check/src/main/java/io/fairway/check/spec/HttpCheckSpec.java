package io.fairway.check.spec;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * {@code HTTP_GET} ({@code tls == false}) or {@code SSL_GET} ({@code tls == true}): every url must answer with an
 * accepted status and, if given, a body whose MD5 matches and that matches the url's regex.
 *
 * @param target            where to connect
 * @param tls               SSL_GET
 * @param urls              at least one url
 * @param virtualHost       Host header when a url has none; {@code null} sends {@code ip:port} like keepalived
 * @param sniName           TLS server name to send, or {@code null} for no SNI (keepalived's default)
 * @param verifyCertificate verify the server's chain and host name (the SNI name, else the url's virtualhost,
 *                          else the IP); keepalived never does, so only with the {@code verify_cert} extension
 * @param caFile            PEM file of trusted CAs for verification (keepalived's {@code SSL { ca }}), or
 *                          {@code null} for the JDK's trust store
 * @param http11            send {@code HTTP/1.1} with {@code Connection: close} instead of {@code HTTP/1.0}
 * @param source            where the connection leaves from ({@code bindto}, {@code bind_port}, {@code bind_if},
 *                          {@code fwmark})
 * @param timing            timing
 * @param fastRecovery      keepalived's {@code fast_recovery}: while the checker has not run yet, or is down with no
 *                          url known to be failing, fetch the next url at once instead of a {@code delay_loop} later
 * @param connectionClose   send {@code Connection: close} (keepalived's {@code http_protocol 1.0C} and {@code 1.1})
 */
public record HttpCheckSpec(InetSocketAddress target, boolean tls, List<UrlSpec> urls, String virtualHost,
                            String sniName, boolean verifyCertificate, Path caFile, boolean http11,
                            CheckSource source, CheckTiming timing, boolean fastRecovery, boolean connectionClose)
        implements CheckSpec {
    public HttpCheckSpec {
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(timing, "timing");
        source = source == null ? CheckSource.NONE : source;
        urls = List.copyOf(urls);
        if (urls.isEmpty()) {
            throw new IllegalArgumentException((tls ? "SSL_GET" : "HTTP_GET") + " needs at least one url");
        }
    }

    /** {@code Connection: close} exactly with HTTP/1.1, as {@code http_protocol 1.0} and {@code 1.1} send. */
    public HttpCheckSpec(InetSocketAddress target, boolean tls, List<UrlSpec> urls, String virtualHost,
                         String sniName, boolean verifyCertificate, Path caFile, boolean http11, CheckSource source,
                         CheckTiming timing, boolean fastRecovery) {
        this(target, tls, urls, virtualHost, sniName, verifyCertificate, caFile, http11, source, timing, fastRecovery,
                http11);
    }

    /** Without {@code fast_recovery} (keepalived's default). */
    public HttpCheckSpec(InetSocketAddress target, boolean tls, List<UrlSpec> urls, String virtualHost,
                         String sniName, boolean verifyCertificate, Path caFile, boolean http11, CheckSource source,
                         CheckTiming timing) {
        this(target, tls, urls, virtualHost, sniName, verifyCertificate, caFile, http11, source, timing, false);
    }

    /** A check from wherever the kernel chooses. */
    public HttpCheckSpec(InetSocketAddress target, boolean tls, List<UrlSpec> urls, String virtualHost,
                         String sniName, boolean verifyCertificate, Path caFile, boolean http11, CheckTiming timing) {
        this(target, tls, urls, virtualHost, sniName, verifyCertificate, caFile, http11, CheckSource.NONE, timing,
                false);
    }

    /** The same check with {@code fast_recovery} on or off. */
    public HttpCheckSpec withFastRecovery(boolean on) {
        return new HttpCheckSpec(target, tls, urls, virtualHost, sniName, verifyCertificate, caFile, http11, source,
                timing, on, connectionClose);
    }

    /** The same check with or without {@code Connection: close} ({@code http_protocol 1.0C} is 1.0 with it). */
    public HttpCheckSpec withConnectionClose(boolean on) {
        return new HttpCheckSpec(target, tls, urls, virtualHost, sniName, verifyCertificate, caFile, http11, source,
                timing, fastRecovery, on);
    }

    @Override
    public String describe() {
        return (tls ? "SSL_GET " : "HTTP_GET ") + Targets.format(target) + source.describe();
    }
}
