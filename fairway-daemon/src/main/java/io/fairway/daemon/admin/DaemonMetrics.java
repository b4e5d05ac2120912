package io.fairway.daemon.admin;

import io.fairway.daemon.EventHub;
import io.fairway.daemon.EventKind;
import io.fairway.daemon.admin.ServicesView.RealServerView;
import io.fairway.daemon.admin.ServicesView.VirtualServerView;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Instant;
import java.util.List;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * {@code GET /metrics}: Prometheus text format through prometheus-metrics.
 *
 * <p>Per-server and per-virtual-server values are read at scrape time from the same view the
 * runtime API shows ({@link ServicesView}), which reads the table back: on the kernel the counters
 * are IPVS's own (netlink stats), in userspace the proxy's. Nothing is counted twice and nothing on
 * the data plane's path changes for metrics. Labels are the configured virtual and real server
 * names only, so cardinality is the configuration's, never the clients' or the URLs'.
 */
public final class DaemonMetrics {
  private static final String VS = "virtual_server";
  private static final String RS = "real_server";

  private final PrometheusRegistry registry;
  private final Supplier<List<VirtualServerView>> services;
  private final Counter reloads;
  private final Gauge lastReload;
  private volatile List<VirtualServerView> snapshot = List.of();

  /** The userspace data plane's metrics; null while the daemon runs on the kernel. */
  private @Nullable ProxyMetrics proxy;

  /**
   * @param services the runtime view, read once per scrape
   */
  public DaemonMetrics(Supplier<List<VirtualServerView>> services, EventHub events) {
    this(new PrometheusRegistry(), services, events);
  }

  /**
   * @param registry where these metrics go, with whatever else is registered there (the checks')
   * @param services the runtime view, read once per scrape
   */
  public DaemonMetrics(
      PrometheusRegistry registry, Supplier<List<VirtualServerView>> services, EventHub events) {
    this.registry = registry;
    this.services = services;
    JvmMetrics.builder().register(registry);
    reloads =
        Counter.builder()
            .name("fairway_reloads")
            .help("Reloads (SIGHUP or POST /api/v1/reload) by result")
            .labelNames("result")
            .register(registry);
    reloads.labelValues("ok");
    reloads.labelValues("refused");
    lastReload =
        Gauge.builder()
            .name("fairway_last_successful_reload_timestamp_seconds")
            .help(
                "When the configuration was last loaded successfully (start or reload), Unix time")
            .register(registry);
    lastReload.set((double) Instant.now().getEpochSecond());
    events.listen(this::countReload);
    serverMetrics();
    virtualServerMetrics();
  }

  private void countReload(EventHub.Event e) {
    if (e.kind().equals(EventKind.RELOAD_OK.wire())) {
      reloads.labelValues("ok").inc();
      lastReload.set(Instant.parse(e.time()).toEpochMilli() / 1000.0);
    } else if (e.kind().equals(EventKind.RELOAD_REFUSED.wire())) {
      reloads.labelValues("refused").inc();
    }
  }

  /** Per real server, read from the scrape's snapshot. */
  private void serverMetrics() {
    serverGauge(
        "fairway_server_up",
        "1 when the checkers say the real server is up, else 0",
        r ->
            r.lastCheck() == null
                ? (r.state().equals("down") ? 0 : 1)
                : r.lastCheck().result().equals("up") ? 1 : 0);
    GaugeWithCallback.builder()
        .name("fairway_server_admin_state")
        .help("1 for the real server's current admin state (none, drain, maint), 0 for the others")
        .labelNames(VS, RS, "state")
        .callback(
            cb ->
                eachServer(
                    (v, r) -> {
                      for (String s : List.of("none", "drain", "maint")) {
                        cb.call(r.adminState().equals(s) ? 1 : 0, v.name(), r.name(), s);
                      }
                    }))
        .register(registry);
    serverGauge(
        "fairway_server_weight_configured",
        "The real server's weight in the configuration",
        RealServerView::configuredWeight);
    serverGauge(
        "fairway_server_weight_effective",
        "The weight the table has for the real server when it serves",
        RealServerView::effectiveWeight);
    serverGauge(
        "fairway_server_active_connections",
        "Active connections as the forwarder counts them",
        RealServerView::activeConnections);
    serverGauge(
        "fairway_server_inactive_connections",
        "Inactive connections as the forwarder counts them",
        RealServerView::inactiveConnections);
    serverCounter(
        "fairway_server_connections",
        "Connections scheduled to the real server (forwarder's counter)",
        RealServerView::connectionsTotal);
    serverCounter(
        "fairway_server_received_bytes",
        "Bytes from clients to the real server (forwarder's counter)",
        RealServerView::bytesIn);
    serverCounter(
        "fairway_server_sent_bytes",
        "Bytes from the real server to clients (forwarder's counter)",
        RealServerView::bytesOut);
  }

  /** Per virtual server: quorum and the sorry server. */
  private void virtualServerMetrics() {
    vsGauge(
        "fairway_virtual_server_quorum_up",
        "1 when the virtual server has quorum",
        v -> v.quorum().equals("up") ? 1 : 0);
    vsGauge(
        "fairway_virtual_server_sorry_server_active",
        "1 while the sorry server serves",
        v -> v.sorryServerState().equals("serving") ? 1 : 0);
    vsGauge(
        "fairway_virtual_server_sorry_server_overflow",
        "1 while quorum holds but the pool is full and new connections overflow to the sorry server",
        v -> v.sorryServerState().equals("overflow") ? 1 : 0);
    vsGauge(
        "fairway_virtual_server_sorry_server_active_connections",
        "Active connections to the sorry server (quorum loss and overflow alike)",
        VirtualServerView::sorryActiveConnections);
    CounterWithCallback.builder()
        .name("fairway_virtual_server_sorry_server_connections")
        .help("Connections scheduled to the sorry server (quorum loss and overflow alike)")
        .labelNames(VS)
        .callback(
            cb -> snapshot.forEach(v -> cb.call((double) v.sorryConnectionsTotal(), v.name())))
        .register(registry);
  }

  /**
   * Adds the userspace data plane's HTTP (HTTP/2's among them) and queue metrics, read from the
   * daemon's proxy table at scrape (none while the daemon runs on the kernel).
   */
  public DaemonMetrics withProxy(io.fairway.daemon.Daemon d) {
    this.proxy =
        new ProxyMetrics(
            d,
            new ProxyHttpMetrics(registry),
            new ProxyQueueMetrics(registry),
            new ProxyLimitMetrics(registry),
            new ProxyProtocolMetrics(registry),
            new AccessLogMetrics(registry),
            new Http2Metrics(registry));
    return this;
  }

  /** The proxy's metric families, registered together and read from the daemon's table. */
  private record ProxyMetrics(
      io.fairway.daemon.Daemon daemon,
      ProxyHttpMetrics http,
      ProxyQueueMetrics queues,
      ProxyLimitMetrics limits,
      ProxyProtocolMetrics proxyProtocol,
      AccessLogMetrics accessLogs,
      Http2Metrics http2) {
    void refresh() {
      http.refresh(daemon);
      queues.refresh(daemon);
      limits.refresh(daemon);
      proxyProtocol.refresh(daemon);
      accessLogs.refresh(daemon);
      http2.refresh(daemon);
    }
  }

  /** One scrape in the Prometheus text format. */
  public synchronized AdminResponse scrape() {
    snapshot = services.get();
    if (proxy != null) {
      proxy.refresh();
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(8192);
    try {
      PrometheusTextFormatWriter w = PrometheusTextFormatWriter.create();
      w.write(out, registry.scrape(), io.prometheus.metrics.config.EscapingScheme.DEFAULT);
      return AdminResponse.of(200, w.getContentType(), out.toByteArray());
    } catch (IOException e) {
      return AdminResponse.error(500, "metrics: " + e.getMessage());
    }
  }

  private interface ServerValue {
    double of(RealServerView r);
  }

  private interface VsValue {
    double of(VirtualServerView v);
  }

  private void eachServer(java.util.function.BiConsumer<VirtualServerView, RealServerView> f) {
    for (VirtualServerView v : snapshot) {
      for (RealServerView r : v.servers()) {
        f.accept(v, r);
      }
    }
  }

  private void serverGauge(String name, String help, ServerValue value) {
    GaugeWithCallback.builder()
        .name(name)
        .help(help)
        .labelNames(VS, RS)
        .callback(cb -> eachServer((v, r) -> cb.call(value.of(r), v.name(), r.name())))
        .register(registry);
  }

  private void serverCounter(String name, String help, ServerValue value) {
    CounterWithCallback.builder()
        .name(name)
        .help(help)
        .labelNames(VS, RS)
        .callback(cb -> eachServer((v, r) -> cb.call(value.of(r), v.name(), r.name())))
        .register(registry);
  }

  private void vsGauge(String name, String help, VsValue value) {
    GaugeWithCallback.builder()
        .name(name)
        .help(help)
        .labelNames(VS)
        .callback(cb -> snapshot.forEach(v -> cb.call(value.of(v), v.name())))
        .register(registry);
  }
}
