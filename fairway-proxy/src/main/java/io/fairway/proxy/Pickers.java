package io.fairway.proxy;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/** Builds the {@link Picker} for a service's scheduler name over a pool snapshot. */
final class Pickers {
  private Pickers() {}

  /** The kernel's scheduler names. */
  static final Set<String> KERNEL =
      Set.of("rr", "wrr", "lc", "wlc", "sh", "dh", "mh", "sed", "nq", "fo", "ovf", "lblc", "lblcr", "twos");

  /** The Varnish director names. */
  static final Set<String> VARNISH = Set.of("round_robin", "fallback", "random", "hash", "shard");

  static boolean known(String scheduler) {
    String s = scheduler.toLowerCase(Locale.ROOT);
    return KERNEL.contains(s) || VARNISH.contains(s);
  }

  static Picker create(String scheduler, Map<String, String> params, List<RealServer> servers) {
    return new RoundRobin(servers);
  }

  /** Plain round robin over the available servers, in table order. */
  static final class RoundRobin implements Picker {
    private final RealServer[] servers;
    private final AtomicInteger next = new AtomicInteger();

    RoundRobin(List<RealServer> servers) {
      this.servers = servers.toArray(new RealServer[0]);
    }

    @Override
    public RealServer pick(InetSocketAddress client, InetSocketAddress vip, String key, int alt) {
      int n = servers.length;
      if (n == 0) {
        return null;
      }
      int start = Math.floorMod(next.getAndIncrement(), n);
      for (int i = 0; i < n; i++) {
        RealServer rs = servers[(start + i) % n];
        if (rs.available()) {
          return rs;
        }
      }
      return null;
    }
  }
}
