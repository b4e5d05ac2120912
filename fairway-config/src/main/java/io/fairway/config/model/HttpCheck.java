package io.fairway.config.model;

import io.fairway.config.model.base.Location;
import java.util.List;
import java.util.Optional;

/**
 * {@code HTTP_GET} or {@code SSL_GET}: every url must answer with an accepted status (and digest /
 * regex when given) for the checker to be up.
 *
 * @param ssl true for SSL_GET
 * @param httpVersion {@code 1.0} (default), {@code 1.0C} or {@code 1.1} ({@code http_protocol})
 * @param urls the urls to fetch, at least one
 * @param fastRecovery re-check at once after a success while recovering ({@code fast_recovery})
 * @param enableSni send SNI (SSL_GET)
 * @param sniName the SNI name, if not the virtualhost
 * @param verifyCert verify the server's certificate chain and host name (Fairway extension {@code
 *     verify_cert}; keepalived never verifies, so it is off unless asked for)
 * @param caFile PEM file of the CAs to trust for {@code verify_cert} ({@code ca_file}); empty means
 *     the top-level {@code SSL { ca }}, else the JDK's trust store
 */
public record HttpCheck(
    Location location,
    CheckerTiming timing,
    Endpoint endpoint,
    boolean ssl,
    String httpVersion,
    List<UrlCheck> urls,
    boolean fastRecovery,
    boolean enableSni,
    Optional<String> sniName,
    boolean verifyCert,
    Optional<String> caFile)
    implements HealthCheck {
  public HttpCheck {
    urls = List.copyOf(urls);
  }

  @Override
  public String keyword() {
    return ssl ? "SSL_GET" : "HTTP_GET";
  }
}
