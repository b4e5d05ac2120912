package io.fairway.daemon.admin;

import io.fairway.apply.ServerBinding;
import io.fairway.apply.ServiceBinding;
import io.fairway.daemon.Daemon;
import io.fairway.proxy.plane.ProxyTable;
import io.fairway.proxy.table.HttpStats;
import io.fairway.table.DestKey;
import io.fairway.table.Service;
import io.fairway.table.ServiceKey;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
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
 * fairway_http_request_duration_seconds}, {@code fairway_http_backend_connect_seconds}, {@code
 * fairway_http_retries_total}, {@code fairway_http_generated_responses_total{code}} and {@code
 * fairway_http_backend_connect_failures_total}, per virtual and real server; {@code
 * fairway_http_no_server_responses_total{code}}, {@code fairway_http_client_connections_total} and
 * {@code fairway_http_client_open_connections} (by protocol) per virtual server. The proxy counts
 * in lock-free adders ({@link HttpStats}); this reads them once per scrape and names them.
 *
 * <p>A response the proxy makes up (502: the server failed or could not be reached, 504: it did not
 * answer in time) is counted for the server the request was scheduled to, in the class counter and
 * the duration histogram like a relayed one, and again by code among the generated ones. A request
 * no server could be chosen for (503) has no server: it is counted per virtual server only. A
 * server under several services (a virtual_server_group) is one series, summed.
 */
final class ProxyHttpMetrics {
  private static final String[] CLASSES = {"1xx", "2xx", "3xx", "4xx", "5xx", "other"};

  /** One real server's counters under its names. */
  record Row(String virtualServer, String realServer, HttpStats.Snapshot stats) {}

  /** One virtual server's counters for the requests no real server was chosen for. */
  record VsRow(String virtualServer, HttpStats.Snapshot stats) {}

  private volatile List<Row> rows = List.of();
  private volatile List<VsRow> vsRows = List.of();

  ProxyHttpMetrics(PrometheusRegistry registry) {
    responseMetrics(registry);
    retryMetrics(registry);
    errorMetrics(registry);
    clientMetrics(registry);
    histograms(registry);
  }

  /** Responses by class and the proxy's own by code, per real server and with none chosen. */
  private void responseMetrics(PrometheusRegistry registry) {
    CounterWithCallback.builder()
        .name("fairway_http_responses")
        .help(
            "HTTP responses to requests scheduled to the real server, by status class: relayed, and the proxy's"
                + " own 502/504 for it (userspace HTTP services)")
        .labelNames("virtual_server", "real_server", "class")
        .callback(
            cb ->
                rows.forEach(
                    r -> {
                      for (int i = 0; i < CLASSES.length; i++) {
                        cb.call(
                            (double) r.stats().byClass()[i],
                            r.virtualServer(),
                            r.realServer(),
                            CLASSES[i]);
                      }
                    }))
        .register(registry);
    CounterWithCallback.builder()
        .name("fairway_http_generated_responses")
        .help(
            "Of fairway_http_responses_total, the error responses the proxy generated itself, by code"
                + " (502 no valid response or not reachable, 504 no answer in time)")
        .labelNames("virtual_server", "real_server", "code")
        .callback(
            cb ->
                rows.forEach(
                    r -> {
                      for (int i = 0; i < HttpStats.GENERATED_CODES.length; i++) {
                        cb.call(
                            (double) r.stats().generated()[i],
                            r.virtualServer(),
                            r.realServer(),
                            Integer.toString(HttpStats.GENERATED_CODES[i]));
                      }
                    }))
        .register(registry);
    CounterWithCallback.builder()
        .name("fairway_http_no_server_responses")
        .help(
            "Error responses the proxy generated for requests no real server could be chosen for, by code"
                + " (503: none available)")
        .labelNames("virtual_server", "code")
        .callback(
            cb ->
                vsRows.forEach(
                    r -> {
                      for (int i = 0; i < HttpStats.GENERATED_CODES.length; i++) {
                        cb.call(
                            (double) r.stats().generated()[i],
                            r.virtualServer(),
                            Integer.toString(HttpStats.GENERATED_CODES[i]));
                      }
                    }))
        .register(registry);
  }

  /** Connections that failed and requests retried, per real server. */
  private void retryMetrics(PrometheusRegistry registry) {
    CounterWithCallback.builder()
        .name("fairway_http_backend_connect_failures")
        .help(
            "Connections to the real server that could not be established (refused, unreachable, timed out)")
        .labelNames("virtual_server", "real_server")
        .callback(
            cb ->
                rows.forEach(
                    r ->
                        cb.call(
                            (double) r.stats().connectFailures(),
                            r.virtualServer(),
                            r.realServer())))
        .register(registry);
    CounterWithCallback.builder()
        .name("fairway_http_retries")
        .help(
            "Requests retried on a fresh connection or another server after the backend failed before answering")
        .labelNames("virtual_server", "real_server")
        .callback(
            cb ->
                rows.forEach(
                    r -> cb.call((double) r.stats().retries(), r.virtualServer(), r.realServer())))
        .register(registry);
  }

  /** The latency histograms per real server. */
  private void histograms(PrometheusRegistry registry) {
    registry.register(
        histogram(
            "fairway_http_backend_first_byte_seconds",
            "From the request head in to the real server's response head, per response",
            x -> x.errors().firstByte()));
    registry.register(
        histogram(
            "fairway_http_request_duration_seconds",
            "From the request head in to the response's end out, per request",
            HttpStats.Snapshot::duration));
    registry.register(
        histogram(
            "fairway_http_backend_connect_seconds",
            "Time to establish a new backend connection (pooled ones are not counted)",
            HttpStats.Snapshot::connect));
  }

  /** Failures by cause per real server, and the client's refused requests by code. */
  private void errorMetrics(PrometheusRegistry registry) {
    CounterWithCallback.builder()
        .name("fairway_http_backend_errors")
        .help(
            "Failures of requests scheduled to the real server, by cause: connect (not reachable),"
                + " timeout (no answer in time, 504), reset (connection closed or reset during the"
                + " exchange), invalid (a response that could not be parsed)")
        .labelNames("virtual_server", "real_server", "cause")
        .callback(
            cb ->
                rows.forEach(
                    r -> {
                      HttpStats.Snapshot x = r.stats();
                      cb.call(
                          (double) x.connectFailures(),
                          r.virtualServer(),
                          r.realServer(),
                          "connect");
                      cb.call(
                          (double) x.generated()[TIMEOUT],
                          r.virtualServer(),
                          r.realServer(),
                          "timeout");
                      cb.call(
                          (double) x.errors().resets(), r.virtualServer(), r.realServer(), "reset");
                      cb.call(
                          (double) x.errors().invalidResponses(),
                          r.virtualServer(),
                          r.realServer(),
                          "invalid");
                    }))
        .register(registry);
    CounterWithCallback.builder()
        .name("fairway_http_client_errors")
        .help(
            "Requests the proxy refused because of the client, by the code it answered (400"
                + " malformed, 408 too slow, 413/414/431 too large, 501/505 unsupported)")
        .labelNames("virtual_server", "code")
        .callback(
            cb ->
                vsRows.forEach(
                    r -> {
                      long[] c = r.stats().errors().clientErrors();
                      for (int i = 0; i < c.length; i++) {
                        cb.call(
                            (double) c[i],
                            r.virtualServer(),
                            Integer.toString(HttpStats.CLIENT_CODES[i]));
                      }
                    }))
        .register(registry);
  }

  /** Client connections per virtual server by the protocol they speak: HTTP/1.1 or h2. */
  // The proxy's HttpStats.Clients arrays are laid out by ClientProtocol ordinal: read the same way.
  @SuppressWarnings("EnumOrdinal")
  private void clientMetrics(PrometheusRegistry registry) {
    CounterWithCallback.builder()
        .name("fairway_http_client_connections")
        .help(
            "Client connections of the virtual server by the protocol they came to speak:"
                + " http/1.1, or h2 (by ALPN, h2c prior knowledge or Upgrade: h2c)")
        .labelNames("virtual_server", "protocol")
        .callback(
            cb ->
                eachProtocol(
                    (r, p) ->
                        cb.call(
                            (double) r.stats().clients().opened()[p.ordinal()],
                            r.virtualServer(),
                            p.label())))
        .register(registry);
    GaugeWithCallback.builder()
        .name("fairway_http_client_open_connections")
        .help("Client connections of the virtual server open now, by protocol (http/1.1, h2)")
        .labelNames("virtual_server", "protocol")
        .callback(
            cb ->
                eachProtocol(
                    (r, p) ->
                        cb.call(
                            (double) r.stats().clients().open()[p.ordinal()],
                            r.virtualServer(),
                            p.label())))
        .register(registry);
  }

  private void eachProtocol(java.util.function.BiConsumer<VsRow, HttpStats.ClientProtocol> f) {
    for (VsRow r : vsRows) {
      for (HttpStats.ClientProtocol p : HttpStats.ClientProtocol.values()) {
        f.accept(r, p);
      }
    }
  }

  /** Index of 504 in {@link HttpStats#GENERATED_CODES}. */
  private static final int TIMEOUT = indexOf(HttpStats.GENERATED_CODES, 504);

  private static int indexOf(int[] codes, int code) {
    for (int i = 0; i < codes.length; i++) {
      if (codes[i] == code) {
        return i;
      }
    }
    throw new IllegalStateException(code + " is not counted");
  }

  /** Reads the proxy's counters, when the daemon runs on the userspace table. */
  void refresh(Daemon daemon) {
    if (!daemon.ready() || !(daemon.applier().table() instanceof ProxyTable proxy)) {
      rows = List.of();
      vsRows = List.of();
      return;
    }
    Map<ServiceKey, Map<DestKey, HttpStats.Snapshot>> stats = proxy.httpStats();
    Map<ServiceKey, HttpStats.Snapshot> byService = proxy.httpServiceStats();
    List<Row> out = new ArrayList<>();
    List<VsRow> vsOut = new ArrayList<>();
    for (ServiceBinding vs : daemon.applier().config().values()) {
      for (ServerBinding rs : vs.servers().values()) {
        HttpStats.Snapshot sum = null;
        for (Service s : vs.services()) {
          HttpStats.Snapshot snap = stats.getOrDefault(s.key(), Map.of()).get(rs.dest().key());
          if (snap != null) {
            sum = sum == null ? snap : sum.plus(snap);
          }
        }
        if (sum != null) {
          out.add(new Row(vs.name(), rs.name(), sum));
        }
      }
      HttpStats.Snapshot sum = null;
      for (Service s : vs.services()) {
        HttpStats.Snapshot snap = byService.get(s.key());
        if (snap != null) {
          sum = sum == null ? snap : sum.plus(snap);
        }
      }
      if (sum != null) {
        vsOut.add(new VsRow(vs.name(), sum));
      }
    }
    rows = out;
    vsRows = vsOut;
  }

  private Collector histogram(
      String name, String help, Function<HttpStats.Snapshot, HttpStats.Buckets> which) {
    return new Collector() {
      @Override
      public MetricSnapshot collect() {
        HistogramSnapshot.Builder b = HistogramSnapshot.builder().name(name).help(help);
        for (Row r : rows) {
          HttpStats.Buckets h = which.apply(r.stats());
          double[] bounds = java.util.Arrays.copyOf(h.bounds(), h.bounds().length + 1);
          bounds[bounds.length - 1] = Double.POSITIVE_INFINITY;
          b.dataPoint(
              HistogramSnapshot.HistogramDataPointSnapshot.builder()
                  .classicHistogramBuckets(ClassicHistogramBuckets.of(bounds, h.counts()))
                  .sum(h.sumSeconds())
                  .labels(
                      Labels.of("real_server", r.realServer(), "virtual_server", r.virtualServer()))
                  .build());
        }
        return b.build();
      }

      // The registry still reads a custom collector's name from here to refuse a second
      // registration under it; without it the name would go unchecked.
      @SuppressWarnings("deprecation")
      @Override
      public String getPrometheusName() {
        return name;
      }
    };
  }
}
