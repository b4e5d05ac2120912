package io.fairway.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.fairway.daemon.Json;
import io.fairway.daemon.discovery.Named;
import io.fairway.testkit.FairwayProcess;
import io.fairway.testkit.HttpBackend;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code fairway run --userspace} with SRV records from named at priorities 0 and 10: the
 * priority-10 server is a standing-by backup that carries no traffic while the priority-0 one is
 * up, and carries it once the priority-0 server fails its check.
 */
class SrvBackupRunTest {
  @TempDir Path dir;
  final Map<String, HttpBackend> backends = new HashMap<>();

  // Started by each test that needs it, before any use; closed after each when started.
  @SuppressWarnings("NullAway.Init")
  FairwayProcess fairway;

  @SuppressWarnings("NullAway.Init")
  Named named;

  @AfterEach
  void cleanUp() throws Exception {
    if (fairway != null) {
      fairway.close();
    }
    if (named != null) {
      named.close();
    }
    backends.values().forEach(HttpBackend::close);
  }

  int backend(String name) throws IOException {
    HttpBackend b = new HttpBackend(name);
    backends.put(name, b);
    return b.port();
  }

  Set<String> served(int vip, int n) {
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < n; i++) {
      try {
        seen.add(UserspaceRunTest.get(vip));
      } catch (Exception e) {
        seen.add("error");
      }
    }
    return seen;
  }

  Map<String, String> states(int admin) throws Exception {
    CliRun json = CliRun.run("status", "--json", "--admin", "127.0.0.1:" + admin);
    assertThat(json.code()).as(json.err()).isZero();
    Map<String, String> out = new HashMap<>();
    for (JsonNode s : Json.mapper().readTree(json.out()).get(0).get("servers")) {
      out.put(s.get("name").asText(), s.get("state").asText() + "/" + s.get("standby").asBoolean());
    }
    return out;
  }

  @Test
  void thePriority10ServerServesOnlyWhenThePriority0OneIsDown() throws Exception {
    int pm = backend("main");
    int ps = backend("spare");
    named =
        new Named(
            dir,
            "main IN A 127.0.0.1\nspare IN A 127.0.0.1\n"
                + "_web._tcp IN SRV 0 1 "
                + pm
                + " main\n_web._tcp IN SRV 10 1 "
                + ps
                + " spare\n");
    int vip = UserspaceRunTest.freePort();
    int admin = UserspaceRunTest.freePort();
    Path conf = dir.resolve("keepalived.conf");
    Files.writeString(
        conf,
        "virtual_server 127.0.0.1 "
            + vip
            + " {\n    delay_loop 1\n    lb_algo rr\n    lb_kind PROXY\n    protocol TCP\n"
            + "    real_server_dns _web._tcp.pool.test {\n        type SRV\n"
            + "        nameserver 127.0.0.1 "
            + named.port
            + "\n        refresh 1\n        TCP_CHECK {\n            connect_timeout 1\n"
            + "        }\n    }\n}\n");
    fairway =
        FairwayProcess.fromTestClasspath()
            .env("FAIRWAY_RUNTIME_DIR", dir.resolve("run").toString())
            .log(dir.resolve("fairway.log"))
            .start("run", "--userspace", "-f", conf.toString(), "--admin", "127.0.0.1:" + admin);
    String main = "main.pool.test:" + pm;
    String spare = "spare.pool.test:" + ps;
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .until(() -> served(vip, 4).equals(Set.of("main")) && states(admin).size() == 2);
    // Both are up by their checks; the backup stands by and gets nothing.
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(
            () ->
                Objects.requireNonNull(states(admin).get(spare), "awaited in the table above")
                    .equals("backup/true"));
    assertThat(states(admin)).containsEntry(main, "up/false");
    assertThat(served(vip, 20)).containsExactly("main");

    // The priority-0 server fails its check: the backup comes in.
    Objects.requireNonNull(backends.remove("main"), "started above").close();
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .until(() -> served(vip, 4).equals(Set.of("spare")));
    assertThat(states(admin)).containsEntry(main, "down/false").containsEntry(spare, "up/false");
  }
}
