package io.fairway.proxy;

import io.fairway.config.model.ProxySettings;
import java.time.Duration;

/**
 * The timeouts one service runs with: its virtual server's {@code proxy_timeouts} where set, the
 * table's {@link ProxyOptions} (or the defaults here) otherwise. Resolved once per spec change, not
 * per connection.
 *
 * @param requestHead a request head must be complete within this after its first byte
 * @param requestBody a request body must be complete within this after its head, plus one second
 *     per {@code requestBodyMinRate} bytes received (so a big upload at a decent rate has all the
 *     time it needs, and a trickle does not)
 * @param requestBodyMinRate bytes per second that earn a body one more second; 0 = none
 * @param connect a backend connect
 * @param firstByte the backend's response head, after the request went out
 * @param keepAlive an idle keep-alive client between requests
 * @param idle an L4 connection or an HTTP exchange without a byte either way
 * @param tunnel an upgraded connection without a byte either way
 */
public record ServiceTimeouts(
    Duration requestHead,
    Duration requestBody,
    long requestBodyMinRate,
    Duration connect,
    Duration firstByte,
    Duration keepAlive,
    Duration idle,
    Duration tunnel) {
  /** nginx's {@code client_body_timeout}. */
  static final Duration REQUEST_BODY = Duration.ofSeconds(60);

  /** Apache's {@code RequestReadTimeout} MinRate default. */
  static final long REQUEST_BODY_MIN_RATE = 500;

  public static ServiceTimeouts of(ProxyOptions o, ProxySettings.Timeouts t) {
    return new ServiceTimeouts(
        t.requestHead().orElse(o.clientHeaderTimeout()),
        t.requestBody().orElse(REQUEST_BODY),
        t.requestBodyMinRate().orElse(REQUEST_BODY_MIN_RATE),
        t.connect().orElse(o.connectTimeout()),
        t.firstByte().orElse(o.backendResponseTimeout()),
        t.keepAlive().orElse(o.clientHeaderTimeout()),
        t.idle().orElse(o.idleTimeout()),
        t.tunnel().orElse(o.idleTimeout()));
  }

  /** The shortest of the HTTP timeouts: how often a connection's ticker must look. */
  public long shortestHttpMillis() {
    long m = Math.min(requestHead.toMillis(), requestBody.toMillis());
    m = Math.min(m, Math.min(firstByte.toMillis(), keepAlive.toMillis()));
    return Math.min(m, Math.min(idle.toMillis(), tunnel.toMillis()));
  }
}
