package io.fairway.check.checker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fairway.check.QuorumChanged;
import io.fairway.check.ServerStateChanged;
import io.fairway.check.VerdictListener;
import io.fairway.check.VerdictSnapshot;
import io.fairway.check.WeightChanged;
import io.fairway.check.config.CheckSpecs;
import io.fairway.check.engine.CheckEngine;
import io.fairway.config.KeepalivedConfig;
import io.fairway.config.ParseOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * rise/fall and the url sequence, end to end: keepalived.conf text → specs → the engine with real
 * HTTP_GET checkers → a real nginx whose page is toggled by creating and deleting a file.
 *
 * <p>No upper wall-clock bound is asserted on steady timing (the machine is shared). Instead nginx
 * logs the uri, status and time of every request, and each verdict is matched with the requests
 * stamped before it. Lower bounds (a timer never fires early) are asserted on the log's times.
 */
class HttpRiseFallTest {
  @TempDir static Path dir;
  static Process nginx;
  static int port;

  @BeforeAll
  static void startNginx() throws Exception {
    Path bin = Programs.require("nginx");
    Files.createDirectories(dir.resolve("www"));
    port = Programs.freePort();
    String conf =
        """
                daemon off;
                master_process off;
                worker_processes 1;
                pid %1$s/nginx.pid;
                error_log %1$s/error.log;
                events { worker_connections 64; }
                http {
                  access_log off;
                  log_format timed '$uri $status $msec';
                  client_body_temp_path %1$s/body; proxy_temp_path %1$s/proxy; fastcgi_temp_path %1$s/fcgi;
                  uwsgi_temp_path %1$s/uwsgi; scgi_temp_path %1$s/scgi;
                  server {
                    listen 127.0.0.1:%2$d;
                    location / { root %1$s/www; access_log %1$s/timed.log timed; }
                    location = /a { access_log %1$s/timed.log timed; return 200 "a"; }
                    location = /b { access_log %1$s/timed.log timed; return 200 "b"; }
                  }
                }
                """
            .formatted(dir, port);
    Files.writeString(dir.resolve("nginx.conf"), conf);
    nginx =
        Programs.start(
            dir.resolve("nginx.out"),
            bin.toString(),
            "-p",
            dir.toString(),
            "-c",
            dir.resolve("nginx.conf").toString());
    Programs.awaitTcp(port, nginx, dir.resolve("error.log"));
  }

  @AfterAll
  static void stop() throws Exception {
    Programs.stop(nginx);
  }

  /** A verdict, when it was given (wall clock, ms), and the log index marked before it. */
  record Verdict(boolean alive, long atMillis, int mark) {
    /**
     * The requests (after the mark) that nginx answered before the verdict. nginx writes a log line
     * after sending the response, so the line of the request that caused the verdict may land just
     * after it; the engine keeps polling, so wait for a line stamped after the verdict, then keep
     * those stamped at or before it. nginx stamps a line with the time its event loop woke for the
     * request, which precedes the response and so the verdict.
     */
    List<String> log() {
      return timedLog().stream().map(line -> line.substring(0, line.lastIndexOf(' '))).toList();
    }

    /** The same lines with their times. */
    List<String> timedLog() {
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> timed(mark).stream().anyMatch(line -> millis(line) > atMillis));
      return timed(mark).stream().filter(line -> millis(line) <= atMillis).toList();
    }
  }

  static final class Listener implements VerdictListener {
    final List<Verdict> verdicts = new CopyOnWriteArrayList<>();
    volatile int mark;

    @Override
    public void initialState(VerdictSnapshot status) {}

    @Override
    public void serverStateChanged(ServerStateChanged e) {
      verdicts.add(new Verdict(e.alive(), System.currentTimeMillis(), mark));
    }

    @Override
    public void weightChanged(WeightChanged e) {}

    @Override
    public void quorumChanged(QuorumChanged e) {}
  }

  /** Every request so far, as {@code "<uri> <status>"}. */
  static List<String> log() {
    return timed(0).stream().map(line -> line.substring(0, line.lastIndexOf(' '))).toList();
  }

  static List<String> since(int mark) {
    List<String> all = log();
    return all.subList(Math.min(mark, all.size()), all.size());
  }

  /** The timed log's lines, from index {@code from}: {@code "<uri> <status> <seconds.millis>"}. */
  static List<String> timed(int from) {
    try {
      Path p = dir.resolve("timed.log");
      List<String> all = Files.exists(p) ? Files.readAllLines(p) : List.of();
      return all.subList(Math.min(from, all.size()), all.size());
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** Milliseconds between the log times of two timed lines. */
  static long gapMillis(String a, String b) {
    return millis(b) - millis(a);
  }

  /**
   * A timed line's stamp, in ms since the epoch ({@code $msec} is seconds with a millisecond
   * fraction).
   */
  static long millis(String line) {
    return Long.parseLong(line.substring(line.lastIndexOf(' ') + 1).replace(".", ""));
  }

  static CheckEngine start(Listener l, String checker) throws Exception {
    return start(l, checker, "0.2");
  }

  static CheckEngine start(Listener l, String checker, String delayLoop) throws Exception {
    String text =
        """
                virtual_server 127.0.0.1 80 {
                  protocol TCP
                  delay_loop %s
                  real_server 127.0.0.1 %d {
                    HTTP_GET {
                      connect_timeout 5
                      delay_before_retry 0.1
                      warmup 0
                %s
                    }
                  }
                }
                """
            .formatted(delayLoop, port, checker);
    var specs =
        CheckSpecs.from(
            KeepalivedConfig.parse("test.conf", text, dir, ParseOptions.defaults()).config());
    CheckEngine engine = CheckEngine.builder().listener(l).build();
    engine.start(specs);
    return engine;
  }

  @Test
  void fallTwoNeedsTwoFailuresAndRiseThreeNeedsThreeCompleteWalks() throws Exception {
    Path page = dir.resolve("www/toggle.html");
    Files.writeString(page, "up\n");
    Listener l = new Listener();
    int start = log().size(); // other tests share the log
    CheckEngine engine =
        start(l, "      rise 3\n      fall 2\n      url {\n        path /toggle.html\n      }");
    try (engine) {
      await()
          .atMost(Duration.ofSeconds(20))
          .until(
              () -> since(start).stream().filter(x -> x.equals("/toggle.html 200")).count() >= 2);
      assertThat(l.verdicts).isEmpty(); // up from the start (no alpha), and staying up

      l.mark = log().size();
      Files.delete(page);
      await().atMost(Duration.ofSeconds(20)).until(() -> !l.verdicts.isEmpty());
      Verdict down = l.verdicts.get(0);
      assertThat(down.alive()).isFalse();
      // The page may have been fetched once more just before the delete landed; then exactly two
      // 404s.
      assertThat(down.log()).endsWith("/toggle.html 404", "/toggle.html 404");
      assertThat(down.log().stream().filter(s -> s.endsWith("404"))).hasSize(2);

      l.mark = log().size();
      Files.writeString(page, "up\n");
      await().atMost(Duration.ofSeconds(20)).until(() -> l.verdicts.size() >= 2);
      Verdict up = l.verdicts.get(1);
      assertThat(up.alive()).isTrue();
      // keepalived first needs the failed url to pass (which only restarts the walk), then rise 3 =
      // three
      // complete walks: four passes in all.
      assertThat(up.log())
          .endsWith("/toggle.html 200", "/toggle.html 200", "/toggle.html 200", "/toggle.html 200");
      assertThat(up.log().stream().filter(s -> s.endsWith("200"))).hasSize(4);
    }
  }

  static final String THREE_URLS =
      "      url {\n        path /a\n      }\n      url {\n        path /mid.html\n      }\n"
          + "      url {\n        path /b\n      }";

  @Test
  void oneUrlPerDelayLoopAndTheFailedUrlAloneWhileDownThenEveryUrlAgain() throws Exception {
    Path page = dir.resolve("www/mid.html");
    Files.deleteIfExists(page);
    Listener l = new Listener();
    l.mark = log().size();
    CheckEngine engine = start(l, "      retry 0\n" + THREE_URLS);
    try (engine) {
      await().atMost(Duration.ofSeconds(20)).until(() -> !l.verdicts.isEmpty());
      assertThat(l.verdicts.get(0).alive()).isFalse();
      // One url per run: /a, then /mid.html a delay_loop later; its failure is final on the first
      // walk.
      assertThat(l.verdicts.get(0).log()).containsExactly("/a 200", "/mid.html 404");
      // While down, only the failed url is polled.
      int before = log().size();
      await().atMost(Duration.ofSeconds(20)).until(() -> log().size() >= before + 2);
      assertThat(since(before)).allMatch(s -> s.equals("/mid.html 404"));

      l.mark = log().size();
      Files.writeString(page, "up\n");
      await().atMost(Duration.ofSeconds(20)).until(() -> l.verdicts.size() >= 2);
      Verdict up = l.verdicts.get(1);
      assertThat(up.alive()).isTrue();
      // The failed url passes, then every url is checked again from the first, one per delay_loop.
      List<String> tail = up.log().subList(up.log().size() - 4, up.log().size());
      assertThat(tail).containsExactly("/mid.html 200", "/a 200", "/mid.html 200", "/b 200");
      List<String> t = up.timedLog();
      List<String> walk = t.subList(t.size() - 4, t.size());
      for (int i = 1; i < walk.size(); i++) {
        // Timers never fire early; 10 ms of slack for the log's millisecond rounding.
        assertThat(gapMillis(walk.get(i - 1), walk.get(i)))
            .as(walk.toString())
            .isGreaterThanOrEqualTo(190);
      }
    }
  }

  @Test
  void fastRecoveryChecksEveryUrlAtOnceOnceTheFailedUrlPasses() throws Exception {
    // delay_loop 3 s: without fast_recovery the three urls after the failed one would take 9 s.
    Path page = dir.resolve("www/mid.html");
    Files.deleteIfExists(page);
    Listener l = new Listener();
    l.mark = log().size();
    CheckEngine engine = start(l, "      retry 0\n      fast_recovery\n" + THREE_URLS, "3");
    try (engine) {
      await().atMost(Duration.ofSeconds(20)).until(() -> !l.verdicts.isEmpty());
      // The first walk does not wait between urls either.
      List<String> first = l.verdicts.get(0).timedLog();
      assertThat(first).hasSize(2);
      assertThat(first.get(0)).startsWith("/a 200 ");
      assertThat(first.get(1)).startsWith("/mid.html 404 ");
      assertThat(gapMillis(first.get(0), first.get(1))).as(first.toString()).isLessThan(3000);

      l.mark = log().size();
      Files.writeString(page, "up\n");
      await().atMost(Duration.ofSeconds(20)).until(() -> l.verdicts.size() >= 2);
      Verdict up = l.verdicts.get(1);
      assertThat(up.alive()).isTrue();
      // A poll of the still missing page may come between the mark and the page's creation.
      List<String> walk = up.timedLog().stream().filter(line -> !line.contains(" 404 ")).toList();
      assertThat(walk.stream().map(line -> line.substring(0, line.lastIndexOf(' '))))
          .containsExactly("/mid.html 200", "/a 200", "/mid.html 200", "/b 200");
      assertThat(gapMillis(walk.get(0), walk.get(3))).as(walk.toString()).isLessThan(3000);
    }
  }
}
