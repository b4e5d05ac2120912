package io.fairway.daemon.uml;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.testkit.ExternalPrograms;
import io.fairway.testkit.uml.Uml;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * {@code lvs_flush}, {@code lvs_timeouts} and {@code lvs_flush_on_stop [VS]} against keepalived
 * 2.2.7, in user-mode Linux: the same files and the same hand-made services (resources/lvs-globals)
 * under {@code keepalived} and under {@code fairway run}, one boot each, in parallel, comparing
 * {@code ipvsadm -L --timeout} and {@code ipvsadm -Sn} after start, after two reloads and after
 * SIGTERM.
 */
class LvsGlobalsDifferentialTest {
  private static final List<String> FILES =
      List.of("driver.sh", "a-0.conf", "a-1.conf", "a-2.conf", "b.conf", "c.conf");
  private static final List<String> POINTS =
      List.of("a-start", "a-reload-tcpfin", "a-reload-none", "a-stop", "b-stop", "c-stop");

  @Test
  void keepalivedAndFairwayLeaveTheSameTimeoutsAndTable() throws Exception {
    Uml.assumeAvailable();
    ExternalPrograms.require("keepalived", "/usr/sbin/keepalived");
    ExternalPrograms.require("ipvsadm", "/usr/sbin/ipvsadm");
    Path scenario = Files.createTempDirectory("fairway-lvs-globals-");
    for (String f : FILES) {
      try (InputStream in = getClass().getResourceAsStream("/lvs-globals/" + f)) {
        Files.copy(Objects.requireNonNull(in, f), scenario.resolve(f));
      }
    }
    Files.writeString(
        scenario.resolve("fairway.sh"),
        "#!/bin/sh\nexec "
            + Uml.javaCommand(Uml.testClasspath(), "io.fairway.cli.Main")
            + " \"$@\"\n");

    Path out = Path.of("target", "uml-lvs-globals").toAbsolutePath();
    Uml.clean(out);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      Future<?> k = pool.submit(() -> boot(scenario, out, "keepalived"));
      Future<?> f = pool.submit(() -> boot(scenario, out, "fairway"));
      k.get();
      f.get();
    } finally {
      pool.shutdownNow();
    }
    Uml.Result r = new Uml.Result(0, false, out, Duration.ZERO);
    String context =
        "\n--- fairway log:\n"
            + tail(r.file("fairway/log.txt"))
            + "\n--- keepalived log:\n"
            + tail(r.file("keepalived/log.txt"));
    for (String point : POINTS) {
      assertThat(r.file("fairway/" + point + ".txt"))
          .as("%s: fairway vs keepalived%s", point, context)
          .isEqualTo(r.file("keepalived/" + point + ".txt"));
    }
    assertThat(r.file("fairway/exit-codes.txt")).isEqualTo("exit 0\nexit 0\nexit 0\n");

    // What keepalived 2.2.7 does, spelled out, so a scenario that exercised nothing fails too.
    String start = r.file("keepalived/a-start.txt");
    assertThat(start)
        .startsWith("Timeout (tcp tcpfin udp): 1000 100 400\n")
        .contains("-A -t 10.16.0.1:80")
        .doesNotContain("10.16.7.7");
    assertThat(r.file("keepalived/a-reload-tcpfin.txt"))
        .startsWith("Timeout (tcp tcpfin udp): 800 50 200\n");
    assertThat(r.file("keepalived/a-reload-none.txt"))
        .startsWith("Timeout (tcp tcpfin udp): 800 100 200\n");
    assertThat(r.file("keepalived/a-stop.txt"))
        .isEqualTo("Timeout (tcp tcpfin udp): 800 100 200\n-A -t 10.16.7.8:80 -s rr\n");
    assertThat(r.file("keepalived/b-stop.txt"))
        .isEqualTo("Timeout (tcp tcpfin udp): 800 100 200\n");
    assertThat(r.file("keepalived/c-stop.txt"))
        .isEqualTo("Timeout (tcp tcpfin udp): 800 100 200\n-A -t 10.16.7.8:80 -s rr\n");
  }

  private static Void boot(Path scenario, Path out, String subject) throws Exception {
    Uml.Result r =
        Uml.builder()
            .command(
                "sh "
                    + Uml.quote(scenario.resolve("driver.sh").toString())
                    + " "
                    + Uml.quote(scenario.toString())
                    + " "
                    + subject)
            .outputDir(out.resolve("boot-" + subject))
            .timeout(Duration.ofMinutes(6))
            .run();
    assertThat(r.exitCode()).as(subject + ": " + r.diagnostics()).isZero();
    Files.move(r.outDir().resolve(subject), out.resolve(subject));
    return null;
  }

  private static String tail(String s) {
    return s.length() <= 4000 ? s : s.substring(s.length() - 4000);
  }
}
