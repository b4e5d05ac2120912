package io.fairway.daemon.announce;

import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.Map;
import java.util.function.Supplier;

/** {@code fairway_announced{address=...}}: 1 while the address is announced, else 0. */
public final class AnnounceMetrics {
  private AnnounceMetrics() {}

  /**
   * Registers the announcement gauges.
   *
   * @param announcing the daemon's, read at each scrape (null before it starts)
   */
  public static void register(PrometheusRegistry registry, Supplier<Announcing> announcing) {
    GaugeWithCallback.builder()
        .name("fairway_announced")
        .help(
            "Whether this node announces the virtual address (a route in announce_table): 1 yes,"
                + " 0 withdrawn")
        .labelNames("address")
        .callback(
            cb -> {
              Announcing a = announcing.get();
              if (a == null) {
                return;
              }
              for (Map.Entry<String, Boolean> e : a.view().entrySet()) {
                cb.call(e.getValue() ? 1 : 0, e.getKey());
              }
            })
        .register(registry);
  }
}
