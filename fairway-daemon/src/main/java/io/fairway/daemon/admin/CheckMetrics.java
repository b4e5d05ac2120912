package io.fairway.daemon.admin;

import io.fairway.check.engine.CheckObserver;
import io.fairway.check.spec.CheckSpec;
import io.fairway.daemon.CheckAttempts;
import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Per check: {@code fairway_check_duration_seconds} (histogram) and {@code
 * fairway_check_results_total{outcome="success|failure|timeout"}}, labelled by virtual server, real
 * server and checker kind ({@code tcp}, {@code http}, {@code misc}, ...): configuration-sized.
 *
 * <p>An attempt the engine abandons at its deadline is {@code outcome="timeout"} and is in the
 * histogram with the time it was given, so it lands in the bucket at (or just above) its deadline:
 * a server that stops answering shows as a pile-up there, not as a gap in the histogram.
 */
public final class CheckMetrics implements CheckObserver {
  private final Histogram duration;
  private final Counter results;

  public CheckMetrics(PrometheusRegistry registry) {
    duration =
        Histogram.builder()
            .name("fairway_check_duration_seconds")
            .help("How long each check attempt took, by checker")
            .labelNames("virtual_server", "real_server", "check")
            .classicOnly()
            .classicUpperBounds(0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)
            // No tracing context to attach: exemplar sampling would only cost (a rate limiter and
            // a scheduler task per observation).
            .withoutExemplars()
            .register(registry);
    results =
        Counter.builder()
            .name("fairway_check_results")
            .help("Check attempts by outcome")
            .labelNames("virtual_server", "real_server", "check", "outcome")
            .withoutExemplars()
            .register(registry);
  }

  /**
   * The checker's histogram series resolved once, its outcome counters on first use (so a series
   * appears when its outcome first happens, as with {@link #observed}): a label lookup per check
   * was a quarter of the check engine's Java time at 11,000 checks a second.
   */
  @Override
  // An array by ordinal, not an EnumMap: lock-free first use from any checker's thread.
  @SuppressWarnings("EnumOrdinal")
  public Bound bind(String virtualServer, String realServer, CheckSpec spec) {
    String kind = CheckAttempts.kind(spec);
    DistributionDataPoint d = duration.labelValues(virtualServer, realServer, kind);
    // Atomic: a MISC or PING checker may answer on another thread than the one that timed it out.
    AtomicReferenceArray<CounterDataPoint> byOutcome =
        new AtomicReferenceArray<>(Outcome.values().length);
    return (outcome, nanos) -> {
      d.observe(nanos / 1e9);
      CounterDataPoint c = byOutcome.get(outcome.ordinal());
      if (c == null) {
        c = results.labelValues(virtualServer, realServer, kind, label(outcome));
        byOutcome.set(outcome.ordinal(), c);
      }
      c.inc();
    };
  }

  @Override
  public void observed(
      String virtualServer, String realServer, CheckSpec spec, Outcome outcome, long nanos) {
    String kind = CheckAttempts.kind(spec);
    duration.labelValues(virtualServer, realServer, kind).observe(nanos / 1e9);
    results.labelValues(virtualServer, realServer, kind, label(outcome)).inc();
  }

  private static String label(Outcome outcome) {
    return outcome.name().toLowerCase(Locale.ROOT);
  }
}
