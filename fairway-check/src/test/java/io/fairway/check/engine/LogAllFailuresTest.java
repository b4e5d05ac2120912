package io.fairway.check.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.sun.net.httpserver.HttpServer;
import io.fairway.check.config.CheckSpecs;
import io.fairway.config.KeepalivedConfig;
import io.fairway.config.ParseOptions;
import io.fairway.config.model.Config;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * keepalived's {@code log_all_failures} / {@code checker_log_all_failures} with real checks: a
 * server that passes, then fails for good. With the keyword every failed attempt of the up checker
 * is logged (retries included), without it only the transition to DOWN; failures of a checker
 * already down are never logged. The configuration goes through the parser and CheckSpecs, so the
 * keyword's inheritance is tested too.
 */
class LogAllFailuresTest {
  private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
  private final Logger logger = (Logger) LoggerFactory.getLogger(VirtualServerState.class);

  @BeforeEach
  void capture() {
    logs.start();
    logger.addAppender(logs);
  }

  @AfterEach
  void release() {
    logger.detachAppender(logs);
  }

  private static Config config(String global, int port, String check) {
    String text =
        "global_defs {\n"
            + global
            + "}\n"
            + "virtual_server 127.0.0.1 8080 {\n delay_loop 0.2\n lb_kind NAT\n protocol TCP\n"
            + " real_server 127.0.0.1 "
            + port
            + " {\n"
            + check
            + "\n }\n}\n";
    return KeepalivedConfig.parse(
            "test.conf", text, Path.of("."), new ParseOptions("test", Map.of()))
        .config();
  }

  private static String checker(String type, String extra) {
    return "  "
        + type
        + " {\n   connect_timeout 1\n   retry 2\n   delay_before_retry 0.1\n   warmup 0\n"
        + extra
        + "  }";
  }

  /** INFO lines, from the first failure on, without the "vs rs: " prefix. */
  private List<String> lines() {
    return logs.list.stream()
        .filter(e -> e.getLevel().isGreaterOrEqual(Level.INFO))
        .map(ILoggingEvent::getFormattedMessage)
        .filter(m -> m.contains("failed") || m.contains("DOWN"))
        .toList();
  }

  /** Runs the engine until the server went down and two more checks failed, returns the lines. */
  private List<String> failAfterPassing(Config c, AtomicInteger passed, Runnable breakIt)
      throws Exception {
    // The recorder only reads the clock's time; nothing is scheduled on it, so it needs no
    // executor.
    @SuppressWarnings("NullAway")
    ExecutorClock clock = new ExecutorClock(null);
    try (CheckEngine engine = CheckEngine.builder().listener(new Recorder(clock)).build()) {
      engine.start(CheckSpecs.from(c));
      await().atMost(Duration.ofSeconds(15)).until(() -> passed.get() >= 2);
      breakIt.run();
      await()
          .atMost(Duration.ofSeconds(15))
          .until(() -> lines().stream().anyMatch(l -> l.contains("DOWN")));
      // Three more delay loops of a down checker: their failures are expected and not logged.
      Thread.sleep(600);
    }
    return lines();
  }

  private List<String> tcp(String global, String extra) throws Exception {
    ServerSocket s = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    AtomicInteger accepted = new AtomicInteger();
    Thread acceptor =
        new Thread(
            () -> {
              while (true) {
                try {
                  s.accept().close();
                  accepted.incrementAndGet();
                } catch (Exception e) {
                  return;
                }
              }
            });
    acceptor.start();
    try {
      return failAfterPassing(
          config(global, s.getLocalPort(), checker("TCP_CHECK", extra)),
          accepted,
          () -> {
            try {
              s.close();
            } catch (Exception e) {
              throw new IllegalStateException(e);
            }
          });
    } finally {
      s.close();
      acceptor.join(1000);
    }
  }

  private List<String> http(String global, String extra) throws Exception {
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    AtomicInteger status = new AtomicInteger(200);
    AtomicInteger ok = new AtomicInteger();
    server.createContext(
        "/",
        x -> {
          int code = status.get();
          if (code == 200) {
            ok.incrementAndGet();
          }
          x.sendResponseHeaders(code, -1);
          x.close();
        });
    server.start();
    try {
      String url = "   url {\n    path /health\n    status_code 200\n   }\n";
      return failAfterPassing(
          config(global, server.getAddress().getPort(), checker("HTTP_GET", url + extra)),
          ok,
          () -> status.set(500));
    } finally {
      server.stop(0);
    }
  }

  @Test
  void tcpWithLogAllFailuresLogsEveryFailedAttemptThenTheTransition() throws Exception {
    List<String> l = tcp("", "   log_all_failures\n");
    assertThat(l).hasSize(4);
    assertThat(l.get(0))
        .matches(
            "127\\.0\\.0\\.1:8080 127\\.0\\.0\\.1:\\d+: TCP_CHECK .* failed \\(attempt 1 of 3\\): connection refused");
    assertThat(l.get(1)).contains("failed (attempt 2 of 3): connection refused");
    assertThat(l.get(2)).contains("failed (attempt 3 of 3): connection refused");
    assertThat(l.get(3)).contains(": DOWN (");
  }

  @Test
  void tcpWithoutItLogsOnlyTheTransition() throws Exception {
    List<String> l = tcp("", "");
    assertThat(l).singleElement().asString().contains(": DOWN (").contains("connection refused");
  }

  @Test
  void theGlobalKeywordWinsOverACheckerThatTurnsItOffAsInKeepalived() throws Exception {
    List<String> l = http(" checker_log_all_failures\n", "   log_all_failures off\n");
    assertThat(l).hasSize(4);
    assertThat(l.get(0)).contains("HTTP_GET").contains("failed (attempt 1 of 3)");
    assertThat(l.get(2)).contains("failed (attempt 3 of 3)");
    assertThat(l.get(3)).contains(": DOWN (");
  }

  @Test
  void httpWithoutItLogsOnlyTheTransition() throws Exception {
    assertThat(http("", "")).singleElement().asString().contains(": DOWN (");
  }
}
