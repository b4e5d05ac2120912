package io.fairway.daemon.admin;

import io.fairway.daemon.Daemon;
import io.fairway.proxy.accesslog.AccessLogFiles;
import io.fairway.proxy.plane.ProxyTable;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.List;

/**
 * {@code fairway_access_log_records_total{log,format,result}}: the records each open access log
 * wrote ({@code result="written"}) and lost ({@code result="dropped"}: its queue was full because
 * the disk or syslog could not keep up, or the file could not be written). A log that a reload
 * removes loses its series.
 */
final class AccessLogMetrics {
  private volatile List<AccessLogFiles.Stat> rows = List.of();

  AccessLogMetrics(PrometheusRegistry registry) {
    CounterWithCallback.builder()
        .name("fairway_access_log_records")
        .help(
            "Access log records by log (file path or syslog target) and what became of them:"
                + " written, or dropped (queue full, or the file could not be written)")
        .labelNames("log", "format", "result")
        .callback(
            cb ->
                rows.forEach(
                    r -> {
                      cb.call((double) r.written(), r.log(), r.format().keyword(), "written");
                      cb.call((double) r.dropped(), r.log(), r.format().keyword(), "dropped");
                    }))
        .register(registry);
  }

  /** Reads the writers' counters, when the daemon runs on the userspace table. */
  void refresh(Daemon daemon) {
    rows =
        daemon.ready() && daemon.applier().table() instanceof ProxyTable proxy
            ? proxy.accessLogStats()
            : List.of();
  }
}
