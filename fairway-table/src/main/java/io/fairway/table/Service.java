package io.fairway.table;

import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A virtual service: its identity and the state {@code setService} can change in place.
 *
 * @param key what identifies the service
 * @param scheduler scheduler name as the kernel knows it ({@code rr}, {@code wlc}, {@code mh}...);
 *     the userspace table also accepts the Varnish director names
 * @param flags service flags; {@link ServiceFlag#PERSISTENT} must go with a non-zero timeout
 * @param timeout persistence timeout in seconds, 0 when not persistent
 * @param netmask persistence granularity: an IPv4 prefix length 0..32 or IPv6 prefix 1..128 (32 /
 *     128 means per client address)
 * @param persistenceEngine persistence engine name (e.g. {@code sip}) or {@code null}
 */
public record Service(
    ServiceKey key,
    String scheduler,
    Set<ServiceFlag> flags,
    int timeout,
    int netmask,
    @Nullable String persistenceEngine) {

  public Service {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(scheduler, "scheduler");
    flags = Set.copyOf(flags);
    if (timeout < 0) {
      throw new IllegalArgumentException("timeout must be >= 0: " + timeout);
    }
    int maxPrefix = key.family() == AddressFamily.INET6 ? 128 : 32;
    if (netmask < 0 || netmask > maxPrefix) {
      throw new IllegalArgumentException("netmask prefix out of range: " + netmask);
    }
  }

  /** A non-persistent service with default flags and a per-address granularity. */
  public static Service of(ServiceKey key, String scheduler) {
    return new Service(
        key, scheduler, Set.of(), 0, key.family() == AddressFamily.INET6 ? 128 : 32, null);
  }

  public Service withScheduler(String s) {
    return new Service(key, s, flags, timeout, netmask, persistenceEngine);
  }

  public Service withPersistence(int seconds, int prefix) {
    Set<ServiceFlag> f = new java.util.HashSet<>(flags);
    if (seconds > 0) {
      f.add(ServiceFlag.PERSISTENT);
    } else {
      f.remove(ServiceFlag.PERSISTENT);
    }
    return new Service(key, scheduler, f, seconds, prefix, persistenceEngine);
  }

  @Override
  public String toString() {
    return key + " " + scheduler + (timeout > 0 ? " persistent " + timeout : "");
  }
}
