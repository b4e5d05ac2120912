package io.fairway.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fairway.proxy.table.HttpStats;
import io.fairway.proxy.tls.ServerTls;
import io.fairway.testkit.ExternalPrograms;
import io.fairway.testkit.TestCerts;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * HTTP/2 toward clients through real sockets: h2c by prior knowledge on a plain listener and h2 by
 * ALPN on a TLS one (BoringSSL and the JDK's provider), with curl and nghttp; streams multiplexed
 * onto HTTP/1.1 backends, a large upload and download through the flow-control windows.
 */
class Http2Test {
  @AutoClose final Cleanup cleanup = new Cleanup();
  @TempDir static Path dir;
  static TestCerts.Pair cert;

  @BeforeAll
  static void certs() throws Exception {
    cert = TestCerts.make(dir, "h2", TestCerts.Kind.EC_SEC1, "h2.test", "h2.test");
  }

  @AfterEach
  void provider() {
    System.clearProperty(ServerTls.FORCE_JDK);
  }

  static String run(String... cmd) throws Exception {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return out + "\nexit=" + p.exitValue();
  }

  /** {@code curl -sS} with {@code args} ({@link #run}). */
  static String curl(String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("curl", "-sS"));
    cmd.addAll(List.of(args));
    return run(cmd.toArray(String[]::new));
  }

  /** curl over h2c by prior knowledge, the response body written to {@code out}. */
  static String h2cTo(Path out, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("--http2-prior-knowledge", "-o", out.toString()));
    cmd.addAll(List.of(args));
    return curl(cmd.toArray(String[]::new));
  }

  @Test
  // The client counts are arrays indexed by ClientProtocol's ordinal, as HttpStats keeps them.
  @SuppressWarnings("EnumOrdinal")
  void h2cByPriorKnowledgeAndHttp11OnTheSameListener() throws Exception {
    ExternalPrograms.require("curl", "/usr/bin/curl");
    H2Proxy p = H2Proxy.start(cleanup, H2Proxy.h2c());
    String base = p.base();
    String h2 =
        curl(
            "-i",
            "--http2-prior-knowledge",
            "-H",
            "cookie: a=1",
            "-H",
            "cookie: b=2",
            base + "/headers");
    assertThat(h2)
        .contains("HTTP/2 200")
        .contains("x-backend: b1")
        .contains("host: 127.0.0.1:" + p.vip().getPort())
        .contains("cookie: a=1; b=2")
        .contains("x-forwarded-for: 127.0.0.1")
        .contains("exit=0");
    assertThat(curl("-i", "--http1.1", base + "/")).contains("HTTP/1.1 200").contains("exit=0");
    assertThat(p.table().h2Stats().connections()).isEqualTo(1);
    assertThat(p.table().h2Stats().streams()).isEqualTo(1);
    // The virtual service's client connections, by protocol.
    HttpStats.Clients clients = p.table().httpServiceStats().values().iterator().next().clients();
    assertThat(clients.opened()[HttpStats.ClientProtocol.HTTP1.ordinal()]).isEqualTo(1);
    assertThat(clients.opened()[HttpStats.ClientProtocol.H2.ordinal()]).isEqualTo(1);
    await()
        .atMost(java.time.Duration.ofSeconds(10))
        .until(
            () ->
                p.table()
                            .httpServiceStats()
                            .values()
                            .iterator()
                            .next()
                            .clients()
                            .open()[HttpStats.ClientProtocol.H2.ordinal()]
                        == 0
                    && p.table().h2Stats().streamsPerConnection()[1] == 1); // bucket le="1"
  }

  @Test
  void upgradeToH2cOnABodilessFirstRequestOnly() throws Exception {
    ExternalPrograms.require("curl", "/usr/bin/curl");
    H2Proxy p = H2Proxy.start(cleanup, H2Proxy.h2c());
    String base = p.base();
    // curl --http2 on http:// asks Upgrade: h2c with HTTP2-Settings in its first request.
    assertThat(curl("-i", "--http2", base + "/headers"))
        .contains("HTTP/1.1 101")
        .contains("HTTP/2 200")
        .contains("x-backend: b1")
        .contains("host: 127.0.0.1:" + p.vip().getPort())
        .doesNotContain("http2-settings")
        .contains("exit=0");
    assertThat(p.table().h2Stats().connections()).isEqualTo(1);
    assertThat(p.table().h2Stats().streams()).isEqualTo(1);
    // With a body the upgrade is ignored: answered over HTTP/1.1 (RFC 9110 7.8).
    assertThat(curl("-i", "--http2", "--data-binary", "abc", base + "/echo"))
        .doesNotContain("101")
        .contains("HTTP/1.1 200")
        .contains("abc")
        .contains("exit=0");
    assertThat(p.table().h2Stats().connections()).isEqualTo(1);
  }

  @Test
  void largeBodiesBothWaysThroughTheWindows() throws Exception {
    ExternalPrograms.require("curl", "/usr/bin/curl");
    H2Proxy p = H2Proxy.start(cleanup, H2Proxy.h2c());
    String base = p.base();
    byte[] body = new byte[3 * 1024 * 1024 + 17];
    new java.util.Random(7).nextBytes(body);
    Path in = dir.resolve("upload.bin");
    Path out = dir.resolve("echoed.bin");
    Files.write(in, body);
    // Chunked toward the backend (no content-length from curl with -T -), then length-framed.
    assertThat(
            h2cTo(
                out,
                "-H",
                "content-type: application/octet-stream",
                "--data-binary",
                "@" + in,
                base + "/echo"))
        .contains("exit=0");
    assertThat(Files.readAllBytes(out)).isEqualTo(body);
    assertThat(h2cTo(out, "-T", in.toString(), "-H", "transfer-encoding:", base + "/echo"))
        .contains("exit=0");
    assertThat(Files.readAllBytes(out)).isEqualTo(body);
    assertThat(h2cTo(out, "-w", "%{size_download}", base + "/big?kb=4096"))
        .contains(Integer.toString(4096 * 1024));
  }

  @Test
  void nghttpMultiplexesStreamsOntoBackends() throws Exception {
    ExternalPrograms.require("nghttp", "/usr/bin/nghttp");
    H2Proxy p = H2Proxy.start(cleanup, H2Proxy.h2c());
    String u = p.base() + "/slow?ms=";
    List<String> cmd = new ArrayList<>(List.of("nghttp", "-n", "-s"));
    for (int i = 0; i < 6; i++) {
      cmd.add(u + (400 + i)); // distinct URIs: nghttp fetches a repeated one once
    }
    String out = run(cmd.toArray(String[]::new));
    assertThat(out).contains("exit=0");
    assertThat(p.backend().requests.get()).isEqualTo(6);
    assertThat(p.backend().mostAtOnce.get())
        .as("streams of one connection are served at once")
        .isGreaterThan(1);
    assertThat(p.table().h2Stats().connections()).isEqualTo(1);
    assertThat(p.table().h2Stats().streams()).isEqualTo(6);
  }

  @ParameterizedTest(name = "jdk provider forced: {0}")
  @ValueSource(booleans = {false, true})
  void alpnPicksH2OrHttp11(boolean jdk) throws Exception {
    ExternalPrograms.require("curl", "/usr/bin/curl");
    if (jdk) {
      System.setProperty(ServerTls.FORCE_JDK, "true");
    }
    H2Proxy p = H2Proxy.start(cleanup, H2Proxy.tls(cert));
    String url = "https://h2.test:" + p.vip().getPort() + "/headers";
    String resolve = "h2.test:" + p.vip().getPort() + ":127.0.0.1";
    String ca = cert.cert().toString();
    assertThat(curl("-i", "--http2", "--cacert", ca, "--resolve", resolve, url))
        .contains("HTTP/2 200")
        .contains("x-forwarded-proto: https")
        .contains("exit=0");
    assertThat(curl("-i", "--http1.1", "--cacert", ca, "--resolve", resolve, url))
        .contains("HTTP/1.1 200")
        .contains("exit=0");
    assertThat(p.table().h2Stats().connections()).isEqualTo(1);
  }
}
