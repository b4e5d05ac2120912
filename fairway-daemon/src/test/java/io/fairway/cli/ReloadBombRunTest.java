package io.fairway.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 16: {@code fairway run --userspace} in a 128 MB heap, serving a real backend, is sent
 * SIGHUP with the one-line triple {@code ~SEQ} bomb (8,000,000 virtual servers). The reload is
 * refused in one line naming the line and the limit, every request made meanwhile succeeds, and the
 * running configuration keeps serving. Before the parse budget the same reload ended in
 * {@code OutOfMemoryError} in thread fairway-SIGHUP.
 */
class ReloadBombRunTest {
  @TempDir Path dir;
  HttpServer backend;
  Process fairway;

  @AfterEach
  void cleanUp() throws Exception {
    if (fairway != null && fairway.isAlive()) {
      fairway.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
    if (backend != null) {
      backend.stop(0);
    }
  }

  @Test
  void aBombReloadIsRefusedWhileRequestsKeepSucceeding() throws Exception {
    backend = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
    backend.createContext("/", ex -> {
      byte[] body = "b1".getBytes(StandardCharsets.UTF_8);
      ex.sendResponseHeaders(200, body.length);
      ex.getResponseBody().write(body);
      ex.close();
    });
    backend.start();
    int vip = UserspaceRunTest.freePort();
    Path conf = dir.resolve("keepalived.conf");
    Files.writeString(conf, UserspaceRunTest.conf(vip, backend.getAddress().getPort()));
    String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    Path log = dir.resolve("fairway.log");
    fairway = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx128m", "-cp", cp, "io.fairway.cli.Main", "run", "--userspace", "-f", conf.toString())
        .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    await().atMost(Duration.ofSeconds(60)).until(() -> UserspaceRunTest.get(vip).equals("b1"));

    Files.writeString(conf, "~SEQ(a,1,200) ~SEQ(b,1,200) ~SEQ(c,1,200) virtual_server "
        + "10.${a}.${b}.${c} 80 { real_server 127.0.0.1 8080 { weight 1 } }\n");
    assertThat(new ProcessBuilder("kill", "-HUP", Long.toString(fairway.pid())).start().waitFor())
        .isZero();
    // Requests on fresh connections until the refusal is logged (bounded: at most 5,000).
    List<String> answers = new ArrayList<>();
    while (answers.size() < 5_000 && !Files.readString(log).contains("reload refused")) {
      answers.add(UserspaceRunTest.get(vip));
    }
    assertThat(Files.readString(log)).contains("reload refused");
    assertThat(answers).as("requests made during the reload").isNotEmpty()
        .allMatch("b1"::equals);
    assertThat(UserspaceRunTest.get(vip)).isEqualTo("b1");

    String text = Files.readString(log);
    assertThat(text.lines().filter(l -> l.contains("reload refused")).toList()).singleElement()
        .asString().contains(conf + ":1: ~SEQ(a,1,200) goes past the limit of 1,000,000 words");
    assertThat(text).doesNotContain("\tat ").doesNotContain("OutOfMemoryError");
    fairway.destroy();
    assertThat(fairway.waitFor(30, TimeUnit.SECONDS)).isTrue();
  }
}
