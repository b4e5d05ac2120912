package io.fairway.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fairway.cli.VrrpRouterProcess.Kind;
import io.fairway.daemon.Promtool;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code fairway run} on a file with only VRRP blocks, in a network namespace of its own: the admin
 * listener serves the same runtime API as with virtual servers (status, health, readiness, the
 * empty service list, the event stream, {@code /metrics} clean under promtool, the status page),
 * the token guards mutations, and what needs a virtual server answers one clear 404 line; a reload
 * of the unchanged file is applied (VRRP reloads by difference); VRRP's own JSON and metrics are
 * there.
 */
@Tag("netns")
class VrrpOnlyAdminTest {
  static final String ADMIN = "http://127.0.0.1:9107";

  @TempDir Path dir;

  // Started by each test that needs it, before any use; closed after each when started.
  @SuppressWarnings("NullAway.Init")
  Netns net;

  @SuppressWarnings("NullAway.Init")
  VrrpRouterProcess router;

  @BeforeAll
  static void available() {
    Netns.assumeAvailable();
    io.fairway.testkit.ExternalPrograms.require("curl", "/usr/bin/curl");
  }

  @AfterEach
  void cleanUp() throws Exception {
    if (router != null) {
      router.close();
      System.out.println("--- " + router.ns + "\n" + router.logText());
    }
    if (net != null) {
      net.close();
    }
  }

  /** One request from inside the namespace: the status code, then the body. */
  record Answer(int code, String body) {}

  Answer curl(String... args) throws Exception {
    List<String> cmd =
        new ArrayList<>(
            List.of(
                "ip", "netns", "exec", net.a, "curl", "-sS", "-m", "30", "-w", "\n%{http_code}"));
    cmd.addAll(List.of(args));
    String out = Netns.sh(cmd.toArray(String[]::new));
    int nl = out.lastIndexOf('\n');
    return new Answer(Integer.parseInt(out.substring(nl + 1).strip()), out.substring(0, nl));
  }

  @Test
  void theVrrpOnlyModeServesTheRuntimeApiMetricsAndThePage() throws Exception {
    net = Netns.create();
    Path token = dir.resolve("admin.token");
    Files.writeString(token, "ops2-vrrp-only-token\n");
    Files.setPosixFilePermissions(token, PosixFilePermissions.fromString("rw-------"));
    router =
        VrrpRouterProcess.start(
            Kind.FAIRWAY,
            net.a,
            dir,
            VrrpInteropTest.globals()
                + VrrpInteropTest.instance("VI_1", 51, 150, "MASTER", "", VrrpInteropTest.VIP),
            "--admin",
            "127.0.0.1:9107",
            "--admin-token-file",
            token.toString());
    await()
        .atMost(VrrpInteropTest.START)
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> {
              try {
                return curl(ADMIN + "/readyz").code() == 200;
              } catch (java.io.IOException e) {
                return false;
              }
            });
    await()
        .atMost(Duration.ofSeconds(15))
        .until(
            () ->
                curl(ADMIN + "/status")
                    .body()
                    .lines()
                    .anyMatch(l -> l.matches("VI_1 +eth0 +51 +MASTER +150 .*")));

    assertThat(curl(ADMIN + "/healthz")).isEqualTo(new Answer(200, "{\"status\":\"ok\"}"));
    assertThat(curl(ADMIN + "/api/v1/services")).isEqualTo(new Answer(200, "[]"));
    Answer page = curl(ADMIN + "/");
    assertThat(page.code()).isEqualTo(200);
    assertThat(page.body())
        .contains("data-reads=\"open\"", "no virtual_server in this configuration")
        .doesNotContain("data-rs");
    assertThat(curl(ADMIN + "/static/status.js").code()).isEqualTo(200);
    Answer metrics = curl(ADMIN + "/metrics");
    assertThat(metrics.code()).isEqualTo(200);
    assertThat(metrics.body())
        .contains("fairway_reloads_total{result=\"ok\"}", "jvm_memory_used_bytes")
        .doesNotContain("fairway_server_up{");
    Promtool.assertClean(metrics.body(), dir);
    // The stream opens (its first line), and runs until curl's time limit cuts it.
    List<String> cmd =
        List.of(
            "ip", "netns", "exec", net.a, "curl", "-sS", "-N", "-m", "1", ADMIN + "/api/v1/events");
    Process p = new ProcessBuilder(cmd).redirectErrorStream(false).start();
    String stream =
        new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    assertThat(p.waitFor()).as("cut by curl's time limit").isEqualTo(28);
    assertThat(stream).startsWith(": fairway events");

    // Mutations: the token first; then what needs a virtual server is a clear 404.
    String state = ADMIN + "/api/v1/services/10.0.0.1%3A80/servers/10.0.1.1%3A80/state";
    Answer noToken = curl("-X", "POST", "--data", "{}", ADMIN + "/api/v1/reload");
    assertThat(noToken.code()).isEqualTo(401);
    Answer reload =
        curl(
            "-X",
            "POST",
            "-H",
            "Authorization: Bearer ops2-vrrp-only-token",
            "--data",
            "{}",
            ADMIN + "/api/v1/reload");
    assertThat(reload.code()).isEqualTo(200);
    assertThat(reload.body()).contains("\"result\":\"ok\"");
    assertThat(curl(ADMIN + "/api/v1/vrrp").body())
        .contains("\"name\":\"VI_1\"", "\"state\":\"master\"");
    assertThat(curl(ADMIN + "/metrics").body())
        .contains(
            "fairway_vrrp_state{instance=\"VI_1\",state=\"master\"} 1",
            "fairway_reloads_total{result=\"ok\"} 1");
    Answer drain =
        curl(
            "-X",
            "POST",
            "-H",
            "Authorization: Bearer ops2-vrrp-only-token",
            "--data",
            "{\"state\":\"drain\"}",
            state);
    assertThat(drain.code()).isEqualTo(404);
    assertThat(drain.body())
        .doesNotContain("\n")
        .contains(
            "unknown virtual server '10.0.0.1:80': there is no virtual_server in this configuration");
    assertThat(curl(ADMIN + "/api/v1/services/10.0.0.1%3A80").code()).isEqualTo(404);
    assertThat(router.alive()).isTrue();
    assertThat(router.logText()).doesNotContain("\tat ");
  }
}
