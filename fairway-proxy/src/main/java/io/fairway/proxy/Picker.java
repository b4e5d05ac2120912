package io.fairway.proxy;

import java.net.InetSocketAddress;

/**
 * Chooses a real server for one new connection or request from one snapshot of a service's pool.
 *
 * <p>The data plane's only view of the selection algorithms: each implementation adapts the
 * director library (Varnish directors, kernel schedulers) to {@link RealServer}s. A picker is
 * rebuilt whenever the pool or the scheduler changes and is then used concurrently by every event
 * loop, so implementations are thread-safe and do not block.
 */
interface Picker {

  /**
   * The {@code alt}-th choice (0 = first) for this flow and key, considering only servers that are
   * {@link RealServer#available()}; {@code null} when none is. Retries after a failed connect ask
   * for {@code alt} 1, 2...: hashing algorithms then name their next candidate, the others simply
   * pick again.
   *
   * @param client the client's address
   * @param vip the virtual service's address
   * @param key the HTTP key ({@link KeySource}), or {@code null} to select by client address
   */
  RealServer pick(InetSocketAddress client, InetSocketAddress vip, String key, int alt);
}
