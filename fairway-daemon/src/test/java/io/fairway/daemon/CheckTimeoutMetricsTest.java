package io.fairway.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.check.checker.CheckResult;
import io.fairway.check.checker.Checker;
import io.fairway.check.config.CheckSpecs;
import io.fairway.check.engine.CheckEngine;
import io.fairway.check.engine.ManualClock;
import io.fairway.check.spec.TcpCheckSpec;
import io.fairway.daemon.admin.CheckMetrics;
import io.fairway.daemon.admin.DaemonMetrics;
import io.fairway.daemon.admin.ServicesView;
import io.fairway.testkit.RecordingTable;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A check attempt the engine abandons at its deadline is in {@code /metrics}: {@code
 * fairway_check_results_total{outcome="timeout"}} and the duration histogram's bucket at the
 * deadline, next to the answered attempts; promtool checks the scrape. A daemon over an in-memory
 * table, its checks scripted on a manual clock: one server's checker never answers.
 */
class CheckTimeoutMetricsTest {
  static final String CONF =
      """
      virtual_server 10.16.0.1 80 {
          delay_loop 5
          lb_algo rr
          lb_kind NAT
          protocol TCP
          real_server 10.16.1.1 80 {
              weight 1
              TCP_CHECK {
                  connect_timeout 2
                  retry 0
                  warmup 0
              }
          }
          real_server 10.16.1.2 80 {
              weight 1
              TCP_CHECK {
                  connect_timeout 2
                  retry 0
                  warmup 0
              }
          }
      }
      """;

  @TempDir Path dir;
  final ManualClock clock = new ManualClock();

  // Started by each test that needs it, before any use; closed after each when started.
  @SuppressWarnings("NullAway.Init")
  Daemon daemon;

  @AfterEach
  void stop() {
    if (daemon != null) {
      daemon.stop();
    }
  }

  static double value(String scrape, String series) {
    Matcher m =
        Pattern.compile("^" + Pattern.quote(series) + " (\\S+)$", Pattern.MULTILINE)
            .matcher(scrape);
    assertThat(m.find()).as(series + " in\n" + scrape).isTrue();
    return Double.parseDouble(m.group(1));
  }

  @Test
  void anAbandonedAttemptIsATimeoutInTheBucketAtItsDeadline() throws Exception {
    Path file = dir.resolve("keepalived.conf");
    Files.writeString(file, CONF);
    PrometheusRegistry registry = new PrometheusRegistry();
    CheckMetrics checks = new CheckMetrics(registry);
    daemon =
        new Daemon(
            file,
            new KeepalivedLoader(false, CheckSpecs::from),
            new RecordingTable(),
            () ->
                CheckEngine.builder()
                    .scheduler(clock)
                    .observer(checks)
                    .checkerFactory(
                        (vs, rs, spec) -> {
                          boolean silent =
                              ((TcpCheckSpec) spec)
                                  .target()
                                  .getAddress()
                                  .getHostAddress()
                                  .equals("10.16.1.2");
                          return new Checker() {
                            @Override
                            public void check(Consumer<CheckResult> done) {
                              if (!silent) {
                                done.accept(CheckResult.ok("connected"));
                              }
                            }

                            @Override
                            public Duration deadline() {
                              return spec.timing().connectTimeout();
                            }
                          };
                        }),
            Duration.ZERO,
            Clock.systemUTC());
    daemon.start();
    DaemonMetrics metrics =
        new DaemonMetrics(registry, () -> ServicesView.of(daemon), daemon.events());
    // First attempts at 1 s (no warmup), the silent one abandoned at its 2 s deadline; the next
    // ones only at 6 s.
    clock.advance(Duration.ofSeconds(4));
    String scrape = new String(metrics.scrape().body(), StandardCharsets.UTF_8);

    String silent = "check=\"tcp\",real_server=\"10.16.1.2:80\",virtual_server=\"10.16.0.1:80\"";
    String answering = "check=\"tcp\",real_server=\"10.16.1.1:80\",virtual_server=\"10.16.0.1:80\"";
    assertThat(
            value(
                scrape,
                "fairway_check_results_total{check=\"tcp\",outcome=\"timeout\",real_server=\"10.16.1.2:80\","
                    + "virtual_server=\"10.16.0.1:80\"}"))
        .isEqualTo(1);
    assertThat(scrape)
        .doesNotContain("outcome=\"failure\",real_server=\"10.16.1.2:80\"")
        .doesNotContain("outcome=\"timeout\",real_server=\"10.16.1.1:80\"");
    assertThat(
            value(
                scrape,
                "fairway_check_results_total{check=\"tcp\",outcome=\"success\",real_server=\"10.16.1.1:80\","
                    + "virtual_server=\"10.16.0.1:80\"}"))
        .isEqualTo(1);
    // In the histogram with the time it was given: 2 s, so above 1 s and within 2.5 s.
    assertThat(value(scrape, "fairway_check_duration_seconds_count{" + silent + "}")).isEqualTo(1);
    assertThat(value(scrape, "fairway_check_duration_seconds_sum{" + silent + "}")).isEqualTo(2.0);
    assertThat(value(scrape, "fairway_check_duration_seconds_bucket{" + silent + ",le=\"1.0\"}"))
        .isZero();
    assertThat(value(scrape, "fairway_check_duration_seconds_bucket{" + silent + ",le=\"2.5\"}"))
        .isEqualTo(1);
    assertThat(
            value(scrape, "fairway_check_duration_seconds_bucket{" + answering + ",le=\"0.001\"}"))
        .isEqualTo(1);
    var byServer =
        Objects.requireNonNull(daemon.listener().health().get("10.16.0.1:80"), "checked above");
    assertThat(Objects.requireNonNull(byServer.get("10.16.1.2:80"), "checked above").alive())
        .isFalse();
    Promtool.assertClean(scrape, dir);
  }
}
