package io.fairway.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.check.config.CheckSpecs;
import io.fairway.check.engine.CheckEngine;
import io.fairway.check.engine.ManualClock;
import io.fairway.testkit.RecordingTable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A reload parses outside the daemon's lock (status answers meanwhile), refuses a file past the
 * parse budget, and survives an OutOfMemoryError in the loader with one line, the running
 * configuration untouched.
 */
class ReloadParseTest {
  @TempDir Path dir;
  final RecordingTable table = new RecordingTable();
  final ManualClock clock = new ManualClock();

  /** What the next load does instead of loading, if set. */
  final AtomicReference<Runnable> before = new AtomicReference<>();

  // Started by each test that needs it, before any use; closed after each when started.
  @SuppressWarnings("NullAway.Init")
  Daemon daemon;

  static final String CONF =
      """
      virtual_server 10.16.0.1 80 {
          lb_algo rr
          lb_kind NAT
          protocol TCP
          real_server 10.16.1.1 80 {
              weight 1
          }
      }
      """;

  Daemon start() throws Exception {
    Path file = dir.resolve("keepalived.conf");
    Files.writeString(file, CONF);
    KeepalivedLoader real = new KeepalivedLoader(false, CheckSpecs::from);
    Loader loader =
        f -> {
          Runnable r = before.getAndSet(null);
          if (r != null) {
            r.run();
          }
          return real.load(f);
        };
    daemon =
        new Daemon(
            file,
            loader,
            table,
            () -> CheckEngine.builder().scheduler(clock),
            Duration.ZERO,
            Clock.systemUTC());
    daemon.start();
    return daemon;
  }

  @AfterEach
  void stop() {
    if (daemon != null) {
      daemon.stop();
    }
  }

  @Test
  void anOutOfMemoryErrorInTheParseIsOneRefusalAndTheTableStays() throws Exception {
    start();
    List<String> running = table.lines();
    before.set(
        () -> {
          throw new OutOfMemoryError("Java heap space");
        });
    String refused = daemon.reload();
    assertThat(refused)
        .isEqualTo(
            dir.resolve("keepalived.conf")
                + ": out of memory while loading the file (Java heap space)");
    assertThat(table.lines()).isEqualTo(running);
    assertThat(daemon.reload()).as("the next reload works again").isNull();
  }

  @Test
  void aBombPastTheBudgetIsRefusedWithItsLine() throws Exception {
    start();
    List<String> running = table.lines();
    Files.writeString(
        dir.resolve("keepalived.conf"),
        "~SEQ(a,1,200) ~SEQ(b,1,200) ~SEQ(c,1,200)"
            + " virtual_server 10.${a}.${b}.${c} 80 { real_server 127.0.0.1 8080 { weight 1 } }\n");
    assertThat(daemon.reload())
        .isEqualTo(
            dir.resolve("keepalived.conf")
                + ":1: ~SEQ(a,1,200) "
                + "goes past the limit of 1,000,000 words (see Limits in docs/config.md)  | ~SEQ(a,1,200) "
                + "~SEQ(b,1,200) ~SEQ(c,1,200) virtual_server 10.${a}.${b}.${c} 80 { real_server "
                + "127.0.0.1 8080 { weight 1 } }");
    assertThat(table.lines()).isEqualTo(running);
  }

  @Test
  void statusAnswersWhileAReloadParses() throws Exception {
    start();
    CountDownLatch parsing = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    before.set(
        () -> {
          parsing.countDown();
          try {
            release.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
    CompletableFuture<String> reload = CompletableFuture.supplyAsync(daemon::reload);
    assertThat(parsing.await(10, TimeUnit.SECONDS)).isTrue();
    // Bounded waits: a status blocked behind the parse would time out here.
    assertThat(CompletableFuture.supplyAsync(daemon::status).get(10, TimeUnit.SECONDS))
        .contains("10.16.1.1:80");
    release.countDown();
    assertThat(reload.get(10, TimeUnit.SECONDS)).isNull();
  }
}
