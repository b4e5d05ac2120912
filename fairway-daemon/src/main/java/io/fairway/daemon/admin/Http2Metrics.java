package io.fairway.daemon.admin;

import io.fairway.daemon.Daemon;
import io.fairway.proxy.http2.H2Stats;
import io.fairway.proxy.plane.ProxyTable;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.Collector;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import java.util.function.ToLongFunction;
import org.jspecify.annotations.Nullable;

/**
 * The HTTP/2 plane's metrics, for the whole proxy (its counters are per table, not per virtual
 * server): {@code fairway_http2_streams_total}, {@code fairway_http2_open_streams}, {@code
 * fairway_http2_streams_per_connection} (histogram), {@code fairway_http2_refused_streams_total},
 * {@code fairway_http2_malformed_requests_total}, {@code fairway_http2_trailers_dropped_total},
 * {@code fairway_http2_floods_total{kind}} and {@code fairway_http2_protocol_errors_total}. The
 * connections by protocol are per virtual server, in {@link ProxyHttpMetrics}.
 */
final class Http2Metrics {
  private static final String STREAMS_PER_CONNECTION = "fairway_http2_streams_per_connection";

  private volatile @Nullable H2Stats stats;

  Http2Metrics(PrometheusRegistry registry) {
    counter(
        registry,
        "fairway_http2_streams",
        "HTTP/2 streams that carried a request",
        H2Stats::streams);
    GaugeWithCallback.builder()
        .name("fairway_http2_open_streams")
        .help("HTTP/2 streams open now")
        .callback(cb -> read(H2Stats::openStreams, cb::call))
        .register(registry);
    counter(
        registry,
        "fairway_http2_refused_streams",
        "HTTP/2 streams refused (RST_STREAM REFUSED_STREAM): opened beyond"
            + " SETTINGS_MAX_CONCURRENT_STREAMS",
        H2Stats::refusedStreams);
    counter(
        registry,
        "fairway_http2_malformed_requests",
        "HTTP/2 requests reset as malformed (RFC 9113 8.1.1)",
        H2Stats::malformed);
    counter(
        registry,
        "fairway_http2_trailers_dropped",
        "HTTP/2 request trailers dropped (a request with content-length has no chunked body for them)",
        H2Stats::trailersDropped);
    CounterWithCallback.builder()
        .name("fairway_http2_floods")
        .help(
            "HTTP/2 connections closed with GOAWAY for a flood, by kind: rapid_reset, continuation,"
                + " control_frames (SETTINGS/PING), empty_frames, resets_sent (streams refused or"
                + " malformed faster than allowed)")
        .labelNames("kind")
        .callback(
            cb -> {
              H2Stats s = stats;
              if (s == null) {
                return;
              }
              for (H2Stats.Flood f : H2Stats.Flood.values()) {
                if (f != H2Stats.Flood.PROTOCOL) {
                  cb.call((double) s.floods(f), f.label());
                }
              }
            })
        .register(registry);
    counter(
        registry,
        "fairway_http2_protocol_errors",
        "HTTP/2 connections closed with GOAWAY for another protocol error (not a flood)",
        s -> s.floods(H2Stats.Flood.PROTOCOL));
    registry.register(streamsPerConnection());
  }

  /** Reads the proxy's counters, when the daemon runs on the userspace table. */
  void refresh(Daemon daemon) {
    stats =
        daemon.ready() && daemon.applier().table() instanceof ProxyTable proxy
            ? proxy.h2Stats()
            : null;
  }

  private interface Sink {
    void call(double value, String... labels);
  }

  private void read(ToLongFunction<H2Stats> value, Sink cb) {
    H2Stats s = stats;
    if (s != null) {
      cb.call((double) value.applyAsLong(s));
    }
  }

  private void counter(
      PrometheusRegistry registry, String name, String help, ToLongFunction<H2Stats> value) {
    CounterWithCallback.builder()
        .name(name)
        .help(help)
        .callback(cb -> read(value, cb::call))
        .register(registry);
  }

  private Collector streamsPerConnection() {
    return new Collector() {
      @Override
      public MetricSnapshot collect() {
        HistogramSnapshot.Builder b =
            HistogramSnapshot.builder()
                .name(STREAMS_PER_CONNECTION)
                .help("Streams each closed HTTP/2 connection carried");
        H2Stats s = stats;
        if (s != null) {
          long[] bounds = H2Stats.streamsBounds();
          double[] upper = new double[bounds.length + 1];
          for (int i = 0; i < bounds.length; i++) {
            upper[i] = bounds[i];
          }
          upper[bounds.length] = Double.POSITIVE_INFINITY;
          b.dataPoint(
              HistogramSnapshot.HistogramDataPointSnapshot.builder()
                  .classicHistogramBuckets(
                      ClassicHistogramBuckets.of(upper, s.streamsPerConnection()))
                  .sum((double) s.streamsOfClosedConnections())
                  .build());
        }
        return b.build();
      }

      // The registry still reads a custom collector's name from here to refuse a second
      // registration under it; without it the name would go unchecked.
      @SuppressWarnings("deprecation")
      @Override
      public String getPrometheusName() {
        return STREAMS_PER_CONNECTION;
      }
    };
  }
}
