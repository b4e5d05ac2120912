package io.fairway.daemon.admin;

import io.fairway.apply.ServerBinding;
import io.fairway.apply.ServiceBinding;
import io.fairway.daemon.Daemon;
import io.fairway.proxy.plane.ProxyTable;
import io.fairway.proxy.table.LimitStats;
import io.fairway.table.DestKey;
import io.fairway.table.Service;
import io.fairway.table.ServiceKey;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The userspace data plane's learned limits, per virtual and real server: {@code
 * fairway_server_learned_limit} (0: none learned, or {@code max_conns} set), {@code
 * fairway_server_refusals_total} (what teaches it) and {@code fairway_server_limit_hits_total}
 * (picks it turned away, which then waited in the queue). A server under several services is one
 * series: the lowest limit in force, the counters summed.
 */
final class ProxyLimitMetrics {
  private static final String[] LABELS = {"virtual_server", "real_server"};

  record Row(String virtualServer, String realServer, LimitStats stats) {}

  private volatile List<Row> rows = List.of();

  ProxyLimitMetrics(PrometheusRegistry registry) {
    GaugeWithCallback.builder()
        .name("fairway_server_learned_limit")
        .help(
            "Connections (L4) or requests (HTTP) at once the real server was seen to take, learned"
                + " from its refusals; 0 = no limit learned or max_conns set (userspace data plane)")
        .labelNames(LABELS)
        .callback(
            cb ->
                rows.forEach(r -> cb.call(r.stats().learned(), r.virtualServer(), r.realServer())))
        .register(registry);
    CounterWithCallback.builder()
        .name("fairway_server_refusals")
        .help(
            "Connections or requests the real server refused: a failed connect, or a fresh"
                + " connection closed before any answer")
        .labelNames(LABELS)
        .callback(
            cb ->
                rows.forEach(
                    r -> cb.call((double) r.stats().refusals(), r.virtualServer(), r.realServer())))
        .register(registry);
    CounterWithCallback.builder()
        .name("fairway_server_limit_hits")
        .help(
            "Picks that found the real server at its learned limit (the client waited in the queue)")
        .labelNames(LABELS)
        .callback(
            cb ->
                rows.forEach(
                    r -> cb.call((double) r.stats().hits(), r.virtualServer(), r.realServer())))
        .register(registry);
  }

  /** Reads the proxy's servers, when the daemon runs on the userspace table. */
  void refresh(Daemon daemon) {
    rows = rows(daemon);
  }

  /**
   * Each configured real server's limit, summed over its virtual server's services; empty unless
   * the daemon runs on the userspace table. The status page reads the same rows.
   */
  static List<Row> rows(Daemon daemon) {
    if (!daemon.ready() || !(daemon.applier().table() instanceof ProxyTable proxy)) {
      return List.of();
    }
    Map<ServiceKey, Map<DestKey, LimitStats>> stats = proxy.limitStats();
    List<Row> out = new ArrayList<>();
    for (ServiceBinding vs : daemon.applier().config().values()) {
      for (ServerBinding rs : vs.servers().values()) {
        LimitStats sum = null;
        for (Service s : vs.services()) {
          LimitStats one = stats.getOrDefault(s.key(), Map.of()).get(rs.dest().key());
          if (one != null) {
            sum = sum == null ? one : plus(sum, one);
          }
        }
        if (sum != null) {
          out.add(new Row(vs.name(), rs.name(), sum));
        }
      }
    }
    return out;
  }

  private static LimitStats plus(LimitStats a, LimitStats b) {
    int learned =
        a.learned() == 0
            ? b.learned()
            : b.learned() == 0 ? a.learned() : Math.min(a.learned(), b.learned());
    return new LimitStats(learned, a.refusals() + b.refusals(), a.hits() + b.hits());
  }
}
