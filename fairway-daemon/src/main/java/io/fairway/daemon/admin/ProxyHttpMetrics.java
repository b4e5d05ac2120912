package io.fairway.daemon.admin;

import io.fairway.apply.RealServer;
import io.fairway.apply.VirtualServer;
import io.fairway.daemon.Daemon;
import io.fairway.proxy.http.HttpStats;
import io.fairway.proxy.table.ProxyTable;
import io.fairway.table.DestKey;
import io.fairway.table.Service;
import io.fairway.table.ServiceKey;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.model.registry.Collector;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The userspace data plane's HTTP metrics: {@code fairway_http_responses_total{class}}, {@code
 * fairway_http_request_duration_seconds}, {@code fairway_http_backend_connect_seconds} and {@code
 * fairway_http_retries_total}, per virtual and real server. The proxy counts in lock-free
 * adders ({@link HttpStats}); this reads them once per scrape and names them.
 */
final class ProxyHttpMetrics {
  private static final String[] CLASSES = {"1xx", "2xx", "3xx", "4xx", "5xx", "other"};

  /** One real server's counters under its names. */
  record Row(String virtualServer, String realServer, HttpStats.Snapshot stats) {}

  private volatile List<Row> rows = List.of();

  ProxyHttpMetrics(PrometheusRegistry registry) {
    CounterWithCallback.builder().name("fairway_http_responses")
        .help("HTTP responses relayed from the real server, by status class (userspace HTTP services)")
        .labelNames("virtual_server", "real_server", "class")
        .callback(cb -> rows.forEach(r -> {
          for (int i = 0; i < CLASSES.length; i++) {
            cb.call(r.stats().byClass()[i], r.virtualServer(), r.realServer(), CLASSES[i]);
          }
        })).register(registry);
    CounterWithCallback.builder().name("fairway_http_retries")
        .help("Requests retried on a fresh connection or another server after the backend failed before answering")
        .labelNames("virtual_server", "real_server")
        .callback(cb -> rows.forEach(r -> cb.call(r.stats().retries(), r.virtualServer(), r.realServer())))
        .register(registry);
    registry.register(histogram("fairway_http_request_duration_seconds",
        "From the request head in to the response's end out, per request", HttpStats.Snapshot::duration));
    registry.register(histogram("fairway_http_backend_connect_seconds",
        "Time to establish a new backend connection (pooled ones are not counted)", HttpStats.Snapshot::connect));
  }

  /** Reads the proxy's counters, when the daemon runs on the userspace table. */
  void refresh(Daemon daemon) {
    if (!daemon.ready() || !(daemon.applier().table() instanceof ProxyTable proxy)) {
      rows = List.of();
      return;
    }
    Map<ServiceKey, Map<DestKey, HttpStats.Snapshot>> stats = proxy.httpStats();
    List<Row> out = new ArrayList<>();
    for (VirtualServer vs : daemon.applier().config().values()) {
      for (RealServer rs : vs.servers().values()) {
        for (Service s : vs.services()) {
          HttpStats.Snapshot snap = stats.getOrDefault(s.key(), Map.of()).get(rs.dest().key());
          if (snap != null) {
            out.add(new Row(vs.name(), rs.name(), snap));
          }
        }
      }
    }
    rows = out;
  }

  private Collector histogram(String name, String help, Function<HttpStats.Snapshot, HttpStats.Buckets> which) {
    return new Collector() {
      @Override
      public MetricSnapshot collect() {
        HistogramSnapshot.Builder b = HistogramSnapshot.builder().name(name).help(help);
        for (Row r : rows) {
          HttpStats.Buckets h = which.apply(r.stats());
          double[] bounds = java.util.Arrays.copyOf(h.bounds(), h.bounds().length + 1);
          bounds[bounds.length - 1] = Double.POSITIVE_INFINITY;
          b.dataPoint(HistogramSnapshot.HistogramDataPointSnapshot.builder()
              .classicHistogramBuckets(ClassicHistogramBuckets.of(bounds, h.counts()))
              .sum(h.sumSeconds())
              .labels(Labels.of("real_server", r.realServer(), "virtual_server", r.virtualServer()))
              .build());
        }
        return b.build();
      }

      @Override
      public String getPrometheusName() {
        return name;
      }
    };
  }
}
