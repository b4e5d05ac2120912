package io.fairway.daemon.discovery;

import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.function.Supplier;

/**
 * The {@code fairway_dns_*} metrics, read from the blocks' states at scrape time: resolutions by
 * result, the servers each block stands for now, and when it was last resolved. The {@code block}
 * label is the block's key (virtual server, DNS name, type): configured names only.
 */
public final class DnsMetrics {
  private static final String BLOCK = "block";

  private DnsMetrics() {}

  /**
   * Registers the DNS discovery counters and gauges.
   *
   * @param discovery the running daemon's, whose states are read at every scrape
   */
  public static void register(PrometheusRegistry registry, Supplier<Discovery> discovery) {
    CounterWithCallback.builder()
        .name("fairway_dns_resolutions")
        .help("real_server_dns resolutions by result (found, gone: NXDOMAIN or no record, failed)")
        .labelNames(BLOCK, "result")
        .callback(
            cb -> {
              for (Discovery.BlockState s : discovery.get().states()) {
                for (Answer.Outcome o : Answer.Outcome.values()) {
                  cb.call(s.resolutions().getOrDefault(o, 0L), s.key(), DnsStatus.wire(o));
                }
              }
            })
        .register(registry);
    GaugeWithCallback.builder()
        .name("fairway_dns_servers")
        .help("Real servers the real_server_dns block stands for in the running configuration")
        .labelNames(BLOCK)
        .callback(cb -> discovery.get().states().forEach(s -> cb.call(s.used().size(), s.key())))
        .register(registry);
    GaugeWithCallback.builder()
        .name("fairway_dns_last_resolution_timestamp_seconds")
        .help("When the real_server_dns block's last resolution ended, Unix time")
        .labelNames(BLOCK)
        .callback(
            cb ->
                discovery
                    .get()
                    .states()
                    .forEach(s -> cb.call(s.lastResolution().toEpochMilli() / 1000.0, s.key())))
        .register(registry);
  }
}
