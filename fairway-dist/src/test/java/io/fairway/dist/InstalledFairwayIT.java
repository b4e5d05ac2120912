package io.fairway.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import io.fairway.testkit.FairwayProcess;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The package as installed: unpacked with {@code dpkg-deb -x} into a throwaway root, the installed
 * {@code /usr/bin/fairway} (on this machine's Java runtime) checks the shipped sample configuration
 * and runs {@code --userspace} in front of a real HTTP backend on loopback; and installed with
 * {@code dpkg -i} into a throwaway root assembled from this host ({@link Deb#inThrowawayRoot}),
 * where its postinst and postrm really run.
 */
class InstalledFairwayIT {
  @TempDir Path dir;

  // Started by each test before use; stopped after each when started.
  @SuppressWarnings("NullAway.Init")
  HttpServer backend;

  @SuppressWarnings("NullAway.Init") // as backend
  FairwayProcess fairway;

  @AfterEach
  void cleanUp() throws Exception {
    if (fairway != null) {
      fairway.close();
    }
    if (backend != null) {
      backend.stop(0);
    }
  }

  static int freePort() throws IOException {
    return io.fairway.testkit.FreePorts.loopback();
  }

  /**
   * postinst: the class data sharing archive, trained on a real run (the proxy's and the applier's
   * classes are in it, not only check-config's), used by the installed launcher, and the training
   * leaves nothing behind; a training that fails leaves no archive and does not fail the install.
   * postrm: purge removes the archive's directory and the conffiles.
   */
  @Test
  void dpkgInstallRunsPostinstAndPurgeRemovesWhatItMade() throws Exception {
    Path root = dir.resolve("root");
    Path layers = dir.resolve("layers");
    String deb = Deb.file().toAbsolutePath().toString();
    Path jsa = root.resolve("var/cache/fairway/fairway.jsa");

    // A JVM that will not start: the training fails, the install does not.
    Deb.Run failed =
        Deb.inThrowawayRoot(
            root,
            layers,
            "JAVA_TOOL_OPTIONS=-XX:+NoSuchFairwayOption dpkg --root=\"$R\" -i \"$1\"\n"
                + "dpkg --root=\"$R\" -s fairway | grep '^Status:'\n",
            deb);
    assertThat(failed.code()).as(failed.output()).isZero();
    assertThat(failed.output())
        .contains(
            "fairway: no class data sharing archive (start-up is slower, nothing else changes)")
        .contains("Status: install ok installed");
    assertThat(jsa).doesNotExist();
    Deb.Run purged = Deb.inThrowawayRoot(root, layers, "dpkg --root=\"$R\" --purge fairway\n");
    assertThat(purged.code()).as(purged.output()).isZero();

    Deb.Run installed =
        Deb.inThrowawayRoot(
            root,
            layers,
            String.join(
                "\n",
                "dpkg --root=\"$R\" -i \"$1\"",
                "dpkg --root=\"$R\" -s fairway | grep '^Status:'",
                "echo \"tmp: $(ls -A \"$R/tmp\" | tr '\\n' ' ')\"",
                // The archive's classes, as the installed runtime reads them.
                "chroot \"$R\" java -XX:SharedArchiveFile=/var/cache/fairway/fairway.jsa -XX:+PrintSharedArchiveAndExit"
                    + " -cp /usr/share/fairway/fairway.jar 2>&1 | grep -o 'io\\.fairway\\.[A-Za-z0-9_.$]*' | sort -u"
                    + " | sed 's/^/archived: /'",
                // The launcher maps it: Fairway's classes come from the archive, not from the jar.
                "chroot \"$R\" env FAIRWAY_JAVA_EXTRA_OPTS=-Xlog:class+load=info /usr/bin/fairway --version"
                    + " | grep -F 'io.fairway.cli.Main source:'",
                ""),
            deb);
    assertThat(installed.code()).as(installed.output()).isZero();
    assertThat(installed.output())
        .contains("Status: install ok installed")
        .doesNotContain("no class data sharing archive")
        .contains("tmp: \n") // the training's throwaway directory is gone
        .contains(
            "archived: io.fairway.proxy.plane.ProxyTable",
            "archived: io.fairway.apply.Applier",
            "archived: io.fairway.cli.TrainingRunCommand",
            "archived: io.fairway.cli.CheckConfigCommand")
        .containsPattern("io\\.fairway\\.cli\\.Main source: shared objects file \\(top\\)");
    assertThat(jsa).isNotEmptyFile();
    assertThat(layers.resolve("etc.upper/fairway/keepalived.conf")).isRegularFile();
    assertThat(layers.resolve("usr.upper/bin/fairway")).isRegularFile();

    Deb.Run removed =
        Deb.inThrowawayRoot(
            root,
            layers,
            String.join(
                "\n",
                "dpkg --root=\"$R\" --purge fairway",
                "dpkg --root=\"$R\" -s fairway 2>&1 || true",
                ""));
    assertThat(removed.code()).as(removed.output()).isZero();
    assertThat(removed.output()).contains("package 'fairway' is not installed");
    assertThat(root.resolve("var/cache/fairway")).doesNotExist();
    assertThat(layers.resolve("etc.upper/fairway")).doesNotExist();
    assertThat(layers.resolve("etc.upper/default/fairway")).doesNotExist();
    assertThat(layers.resolve("usr.upper/bin/fairway")).doesNotExist();
    assertThat(layers.resolve("usr.upper/share/fairway")).doesNotExist();
  }

  @Test
  void theInstalledCommandChecksTheSampleAndServesOnTheUserspaceProxy() throws Exception {
    Deb.require("java");
    Path root = Deb.unpack(dir.resolve("root"));
    Path fw = root.resolve("usr/bin/fairway");

    Deb.Run check =
        Deb.run(
            fw.toString(),
            "check-config",
            "-f",
            root.resolve("etc/fairway/keepalived.conf").toString());
    assertThat(check.code()).as(check.output()).isZero();

    backend = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    backend.createContext(
        "/",
        ex -> {
          byte[] body = "from the backend".getBytes(StandardCharsets.UTF_8);
          ex.sendResponseHeaders(200, body.length);
          ex.getResponseBody().write(body);
          ex.close();
        });
    backend.start();
    int vip = freePort();
    Path conf = dir.resolve("keepalived.conf");
    Files.writeString(
        conf,
        "virtual_server 127.0.0.1 "
            + vip
            + " {\n    delay_loop 1\n"
            + "    lb_algo rr\n    lb_kind PROXY\n    protocol TCP\n"
            + "    real_server 127.0.0.1 "
            + backend.getAddress().getPort()
            + " {\n"
            + "        TCP_CHECK {\n            connect_timeout 1\n        }\n    }\n}\n");
    Path runtime = Files.createDirectory(dir.resolve("run"));
    fairway =
        FairwayProcess.installed(fw)
            .env("RUNTIME_DIRECTORY", runtime.toString()) // what the unit gives it
            .log(dir.resolve("fairway.log"))
            .start(
                "run",
                "--userspace",
                "-f",
                conf.toString(),
                "--admin",
                "off",
                // The HTTP client keeps its connection: the soft stop would wait the default 30 s
                // for it.
                "--grace-period",
                "2");

    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    HttpRequest get =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + vip + "/"))
            .timeout(Duration.ofSeconds(3))
            .build();
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .until(
            () ->
                http.send(get, HttpResponse.BodyHandlers.ofString())
                    .body()
                    .equals("from the backend"));

    assertThat(fairway.stop(Duration.ofSeconds(30))).as(fairway.log()).isZero();
    assertThat(fairway.log()).contains("Daemon: running " + conf).doesNotContain("\tat ");
  }
}
