package io.fairway.cli;

import static io.fairway.cli.CliRun.run;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fairway.daemon.AdminFixture;
import io.fairway.daemon.Json;
import io.fairway.table.MemoryTable;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code fairway status --rates / --watch}: the page's per-server columns as text, from two reads;
 * frames drawn over each other; refused where it would run forever into a file.
 */
class StatusWatchTest {
  @TempDir Path dir;

  // Started by each test that needs it, before any use; closed after each when started.
  @SuppressWarnings("NullAway.Init")
  AdminFixture fixture;

  @SuppressWarnings("NullAway.Init")
  ServerSocket backend;

  @AfterEach
  void stop() throws Exception {
    if (fixture != null) {
      fixture.close();
    }
    if (backend != null) {
      backend.close();
    }
  }

  static JsonNode json(String s) throws Exception {
    return Json.mapper().readTree(s);
  }

  static String services(long conns, long requests, long errors, String total) {
    return """
        [{"name":"web","quorum":"up","sorry_server":null,
          "queue":{"waiting":1,"queued":9,"timed_out":2,"refused_full":0},"servers":[
          {"name":"10.0.0.1:80","state":"up","effective_weight":2,"configured_weight":3,
           "active_connections":4,"limit":100,"connections_total":%d,"bytes_in":2048,"bytes_out":10,
           "last_check":{"result":"up","reason":"init: up","since":"2026-01-01T00:00:00Z",
             "last_attempt":{"check":"http","outcome":"success",
               "observation":"url / ok: status 200","duration_ms":3.25,"at":"2026-01-01T00:02:13Z"}},
           "http":{"requests":%d,"errors":%d,"retries":1,
             "latency":{"bounds_seconds":[0.01,0.1,1],"total":%s}}}]}]
        """
        .formatted(conns, requests, errors, total);
  }

  @Test
  void ratesErrorsAndP99AreTheDifferenceOfTwoReads() throws Exception {
    String frame =
        StatusRates.render(
            json(services(100, 1000, 5, "[0,0,0,0]")),
            json(services(120, 1100, 7, "[0,98,2,0]")),
            Duration.ofSeconds(2),
            Instant.parse("2026-01-01T00:02:13Z"));
    String row = frame.lines().filter(l -> l.contains("10.0.0.1:80")).findFirst().orElseThrow();
    assertThat(row.trim().split("\\s+"))
        .startsWith(
            "10.0.0.1:80",
            "up",
            "2m13s",
            "2/3",
            "4/100",
            "10.0",
            "50.0",
            "7",
            "1.0",
            "1",
            "2.0KiB",
            "/",
            "10B");
    // 99 of 100 requests: the rank 99 falls at the first of the 2 in (0.1, 1]: 0.1 + 0.9 * 1/2
    assertThat(row).contains("550.0ms", "http success: url / ok: status 200 (3.3 ms)");
    assertThat(frame)
        .contains("web: quorum up, queue 1 waiting (9 queued, 2 timed out, 0 refused full)");

    String first =
        StatusRates.render(
            null,
            json(services(120, 1100, 7, "[0,98,2,0]")),
            Duration.ZERO,
            Instant.parse("2026-01-01T00:02:13Z"));
    assertThat(first.lines().filter(l -> l.contains("10.0.0.1:80")).findFirst().orElseThrow())
        .as("no earlier read: no rate, no p99")
        .doesNotContain(" 10.0 ", " 50.0 ", "550.0ms");
  }

  @Test
  void watchDrawsFramesOverEachOtherAndIsRefusedWithoutATerminalOrAnEnd() throws Exception {
    backend = AdminFixture.tcpBackend();
    fixture =
        AdminFixture.in(dir, new MemoryTable())
            .metrics(() -> null)
            .start(
                """
                virtual_server 127.0.0.1 18081 {
                    delay_loop 1
                    lb_algo rr
                    lb_kind NAT
                    protocol TCP
                    real_server 127.0.0.1 %d {
                        weight 1
                        TCP_CHECK {
                            connect_timeout 1
                        }
                    }
                }
                """
                    .formatted(backend.getLocalPort()));
    String admin = fixture.admin();
    String rs = "127.0.0.1:" + backend.getLocalPort();

    CliRun watch = run("status", "--admin", admin, "--watch", "0.5", "--count", "3");
    assertThat(watch.code()).as(watch.err()).isZero();
    assertThat(watch.out().split("\033\\[H\033\\[2J", -1)).hasSize(4);
    assertThat(watch.out()).contains("Every 0.5s: fairway status --watch", "rates over ");
    assertThat(watch.out().lines().filter(l -> l.contains(rs))).hasSize(3);

    CliRun rates = run("status", "--admin", admin, "--rates");
    assertThat(rates.code()).as(rates.err()).isZero();
    assertThat(rates.out()).doesNotContain("\033").contains(rs, "fairway status --rates");

    // The test's output is no terminal: an endless redraw into it is refused, in one line.
    CliRun endless = run("status", "--admin", admin, "--watch");
    assertThat(endless.code()).isEqualTo(Main.EXIT_USAGE);
    assertThat(endless.err().strip().lines()).hasSize(1);
    assertThat(endless.err()).contains("--count");
    for (String[] bad :
        new String[][] {
          {"--watch", "0.1", "--count", "1"},
          {"--count", "2"},
          {"--watch", "1", "--count", "0"},
          {"--rates", "--json"}
        }) {
      String[] args = new String[bad.length + 3];
      args[0] = "status";
      args[1] = "--admin";
      args[2] = admin;
      System.arraycopy(bad, 0, args, 3, bad.length);
      CliRun r = run(args);
      assertThat(r.code()).as(String.join(" ", bad)).isEqualTo(Main.EXIT_USAGE);
      assertThat(r.err().strip().lines()).as(r.err()).hasSize(1);
    }
  }
}
