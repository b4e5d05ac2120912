package io.fairway.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fairway.testkit.FairwayProcess;
import io.fairway.testkit.HttpBackend;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 16: {@code fairway run --userspace} in a 128 MB heap, serving a real backend, is sent
 * SIGHUP with the one-line triple {@code ~SEQ} bomb (8,000,000 virtual servers). The reload is
 * refused in one line naming the line and the limit, every request made meanwhile succeeds, and the
 * running configuration keeps serving. Before the parse budget the same reload ended in {@code
 * OutOfMemoryError} in thread fairway-SIGHUP.
 */
class ReloadBombRunTest {
  @TempDir Path dir;

  // Started by each test that needs it, before any use; closed after each when started.
  @SuppressWarnings("NullAway.Init")
  HttpBackend backend;

  @SuppressWarnings("NullAway.Init")
  FairwayProcess fairway;

  @AfterEach
  void cleanUp() throws Exception {
    if (fairway != null) {
      fairway.close();
    }
    if (backend != null) {
      backend.close();
    }
  }

  @Test
  void aBombReloadIsRefusedWhileRequestsKeepSucceeding() throws Exception {
    backend = new HttpBackend("b1");
    int vip = UserspaceRunTest.freePort();
    Path conf = dir.resolve("keepalived.conf");
    Files.writeString(conf, UserspaceRunTest.conf(vip, backend.port()));
    fairway =
        FairwayProcess.fromTestClasspath("-Xmx128m")
            .log(dir.resolve("fairway.log"))
            .start("run", "--userspace", "-f", conf.toString(), "--admin", "off");
    await().atMost(Duration.ofSeconds(60)).until(() -> UserspaceRunTest.get(vip).equals("b1"));

    Files.writeString(
        conf,
        "~SEQ(a,1,200) ~SEQ(b,1,200) ~SEQ(c,1,200) virtual_server "
            + "10.${a}.${b}.${c} 80 { real_server 127.0.0.1 8080 { weight 1 } }\n");
    fairway.signal("HUP");
    // Requests on fresh connections until the refusal is logged (bounded: at most 5,000).
    List<String> answers = new ArrayList<>();
    while (answers.size() < 5_000 && !fairway.log().contains("reload refused")) {
      answers.add(UserspaceRunTest.get(vip));
    }
    assertThat(fairway.log()).contains("reload refused");
    assertThat(answers).as("requests made during the reload").isNotEmpty().allMatch("b1"::equals);
    assertThat(UserspaceRunTest.get(vip)).isEqualTo("b1");

    String text = fairway.log();
    assertThat(text.lines().filter(l -> l.contains("reload refused")).toList())
        .singleElement()
        .asString()
        .contains(conf + ":1: ~SEQ(a,1,200) goes past the limit of 1,000,000 words");
    assertThat(text).doesNotContain("\tat ").doesNotContain("OutOfMemoryError");
    fairway.stop(Duration.ofSeconds(30));
  }
}
