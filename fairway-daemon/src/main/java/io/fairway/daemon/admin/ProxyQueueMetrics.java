package io.fairway.daemon.admin;

import io.fairway.apply.ServiceBinding;
import io.fairway.daemon.Daemon;
import io.fairway.proxy.plane.ProxyTable;
import io.fairway.proxy.table.QueueStats;
import io.fairway.table.Service;
import io.fairway.table.ServiceKey;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The userspace data plane's queues, per virtual server: {@code
 * fairway_virtual_server_queue_waiting} (connections or requests waiting for a slot now), {@code
 * fairway_virtual_server_queued_total}, {@code fairway_virtual_server_queue_timeouts_total} and
 * {@code fairway_virtual_server_queue_full_total}. A service queues only when every server is at
 * its {@code max_conns} or {@code uthreshold}; an operator who set one wants to see whether clients
 * wait, and how many gave up, before they call.
 */
final class ProxyQueueMetrics {
  private static final String VS = "virtual_server";

  /** One virtual server's queues, summed over its services (a virtual_server_group's members). */
  record Row(String virtualServer, QueueStats stats) {}

  private volatile List<Row> rows = List.of();

  ProxyQueueMetrics(PrometheusRegistry registry) {
    GaugeWithCallback.builder()
        .name("fairway_virtual_server_queue_waiting")
        .help(
            "Connections (L4) or requests (HTTP) waiting for a real server under its max_conns or"
                + " uthreshold, now (userspace data plane)")
        .labelNames(VS)
        .callback(cb -> rows.forEach(r -> cb.call(r.stats().waiting(), r.virtualServer())))
        .register(registry);
    counter(
        registry,
        "fairway_virtual_server_queued",
        "Connections or requests that waited for a slot because every real server was full",
        QueueStats::queued);
    counter(
        registry,
        "fairway_virtual_server_queue_timeouts",
        "Of those, the ones no slot freed for within the connect timeout: refused (L4 closed, HTTP 503)",
        QueueStats::timedOut);
    counter(
        registry,
        "fairway_virtual_server_queue_full",
        "Connections or requests refused at once because the queue itself was full",
        QueueStats::refusedFull);
  }

  private void counter(
      PrometheusRegistry registry, String name, String help, ToDoubleFunction<QueueStats> value) {
    CounterWithCallback.builder()
        .name(name)
        .help(help)
        .labelNames(VS)
        .callback(
            cb -> rows.forEach(r -> cb.call(value.applyAsDouble(r.stats()), r.virtualServer())))
        .register(registry);
  }

  /** Reads the proxy's queues, when the daemon runs on the userspace table. */
  void refresh(Daemon daemon) {
    if (!daemon.ready() || !(daemon.applier().table() instanceof ProxyTable proxy)) {
      rows = List.of();
      return;
    }
    Map<ServiceKey, QueueStats> stats = proxy.queueStats();
    List<Row> out = new ArrayList<>();
    for (ServiceBinding vs : daemon.applier().config().values()) {
      QueueStats sum = QueueStats.NONE;
      for (Service s : vs.services()) {
        sum = sum.plus(stats.getOrDefault(s.key(), QueueStats.NONE));
      }
      out.add(new Row(vs.name(), sum));
    }
    rows = out;
  }
}
