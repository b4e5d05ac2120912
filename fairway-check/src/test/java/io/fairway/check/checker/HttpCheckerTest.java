package io.fairway.check.checker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairway.check.CheckConfigException;
import io.fairway.check.spec.CheckTiming;
import io.fairway.check.spec.HttpCheckSpec;
import io.fairway.check.spec.UrlSpec;
import io.fairway.config.model.StatusRange;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * HTTP_GET and SSL_GET against a real nginx on loopback, TLS with a self-signed certificate made at
 * test time.
 */
class HttpCheckerTest {
  @TempDir static Path dir;
  static Process nginx;
  static int http;
  static int https;
  static Path cert;

  /** A second self-signed certificate: a CA that did not sign nginx's certificate. */
  static Path otherCa;

  static Path access;
  static final CheckerHarness harness = new CheckerHarness();
  static final CheckTiming T = CheckTiming.of(Duration.ofSeconds(1), Duration.ofSeconds(2));

  @BeforeAll
  static void startNginx() throws Exception {
    Path bin = Programs.require("nginx");
    Path openssl = Programs.require("openssl");
    cert = dir.resolve("cert.pem");
    Path key = dir.resolve("key.pem");
    Process gen =
        new ProcessBuilder(
                openssl.toString(),
                "req",
                "-x509",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-keyout",
                key.toString(),
                "-out",
                cert.toString(),
                "-days",
                "2",
                "-subj",
                "/CN=check.test",
                "-addext",
                "subjectAltName=DNS:check.test")
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("openssl.log").toFile())
            .start();
    assertThat(gen.waitFor()).as(Programs.tail(dir.resolve("openssl.log"))).isZero();
    otherCa = dir.resolve("other-ca.pem");
    Process gen2 =
        new ProcessBuilder(
                openssl.toString(),
                "req",
                "-x509",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-keyout",
                dir.resolve("other-key.pem").toString(),
                "-out",
                otherCa.toString(),
                "-days",
                "2",
                "-subj",
                "/CN=check.test",
                "-addext",
                "subjectAltName=DNS:check.test")
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("openssl2.log").toFile())
            .start();
    assertThat(gen2.waitFor()).as(Programs.tail(dir.resolve("openssl2.log"))).isZero();
    access = dir.resolve("counted.log");
    Files.createDirectories(dir.resolve("www/static"));
    Files.writeString(dir.resolve("www/static/page.html"), "hello fairway\n");
    http = Programs.freePort();
    https = Programs.freePort();
    String locations =
        """
                    location = /health { return 200 "ok\\n"; }
                    location = /fail { return 503 "down\\n"; }
                    location = /host { return 200 "$host"; }
                    location = /sni { return 200 "sni=$ssl_server_name"; }
                    location = /slow { return 200 "x"; limit_rate 1; }
                    location /static/ { root %s; }
                    location = /body { return 200 "status: ok\\nversion: 1.2.3\\n"; }
                    location = /aaaa { return 200 "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"; }
                    location = /counted { access_log %s; return 200 "counted\\n"; }
                """
            .formatted(dir.resolve("www"), dir.resolve("counted.log"));
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
                  client_body_temp_path %1$s/body; proxy_temp_path %1$s/proxy; fastcgi_temp_path %1$s/fcgi;
                  uwsgi_temp_path %1$s/uwsgi; scgi_temp_path %1$s/scgi;
                  server { listen 127.0.0.1:%2$d; %4$s }
                  server { listen 127.0.0.1:%3$d ssl; server_name check.test;
                           ssl_certificate %5$s; ssl_certificate_key %6$s; %4$s }
                }
                """
            .formatted(dir, http, https, locations, cert, key);
    Files.writeString(dir.resolve("nginx.conf"), conf);
    Path log = dir.resolve("nginx.out");
    nginx =
        Programs.start(
            log, bin.toString(), "-p", dir.toString(), "-c", dir.resolve("nginx.conf").toString());
    Programs.awaitTcp(http, nginx, dir.resolve("error.log"));
    Programs.awaitTcp(https, nginx, dir.resolve("error.log"));
  }

  @AfterAll
  static void stop() throws Exception {
    harness.close();
    Programs.stop(nginx);
  }

  static HttpCheckSpec get(int port, boolean tls, UrlSpec... urls) {
    return HttpCheckSpec.builder(new InetSocketAddress("127.0.0.1", port), T)
        .tls(tls)
        .urls(urls)
        .build();
  }

  static String md5(String s) throws Exception {
    return HexFormat.of()
        .formatHex(MessageDigest.getInstance("MD5").digest(s.getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void requestHeadIsKeepalivedsForEachHttpProtocol() throws Exception {
    // http_protocol 1.0 / 1.0C / 1.1: version and Connection: close as keepalived's check_http.c
    // sends them.
    for (var c :
        List.of(
            new Object[] {false, false, "GET / HTTP/1.0", false},
            new Object[] {false, true, "GET / HTTP/1.0", true},
            new Object[] {true, true, "GET / HTTP/1.1", true})) {
      try (java.net.ServerSocket server =
          new java.net.ServerSocket(0, 5, java.net.InetAddress.getByName("127.0.0.1"))) {
        CompletableFuture<List<String>> head = new CompletableFuture<>();
        Thread t =
            new Thread(
                () -> {
                  try (java.net.Socket s = server.accept()) {
                    var in =
                        new java.io.BufferedReader(
                            new java.io.InputStreamReader(
                                s.getInputStream(), java.nio.charset.StandardCharsets.US_ASCII));
                    List<String> lines = new java.util.ArrayList<>();
                    for (String l; (l = in.readLine()) != null && !l.isEmpty(); ) {
                      lines.add(l);
                    }
                    head.complete(lines);
                    s.getOutputStream()
                        .write(
                            "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok"
                                .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                  } catch (Exception e) {
                    head.completeExceptionally(e);
                  }
                });
        t.start();
        var spec =
            HttpCheckSpec.builder(new InetSocketAddress("127.0.0.1", server.getLocalPort()), T)
                .urls(UrlSpec.path("/"))
                .http11((boolean) c[0])
                .connectionClose((boolean) c[1])
                .build();
        assertThat(harness.once(spec).success()).isTrue();
        List<String> lines = head.get(5, TimeUnit.SECONDS);
        assertThat(lines.get(0)).isEqualTo(c[2]);
        // Header names are case-insensitive; Netty writes them in lower case.
        List<String> lower = lines.stream().map(l -> l.toLowerCase(java.util.Locale.ROOT)).toList();
        assertThat(lower).contains("user-agent: keepaliveclient");
        if ((boolean) c[3]) {
          assertThat(lower).contains("connection: close");
        } else {
          assertThat(lower).noneMatch(l -> l.startsWith("connection:"));
        }
        t.join(2000);
      }
    }
  }

  @Test
  void healthyUrlPasses() throws Exception {
    CheckResult r = harness.once(get(http, false, UrlSpec.path("/health")));
    assertThat(r.success()).as(r.observation()).isTrue();
  }

  @Test
  void statusOutsideTheAcceptedRangesFails() throws Exception {
    CheckResult r = harness.once(get(http, false, UrlSpec.path("/fail")));
    assertThat(r.success()).isFalse();
    assertThat(r.observation()).isEqualTo("/fail: status 503, expected 200-299");
    var accept503 = new UrlSpec("/fail", null, List.of(new StatusRange(500, 503)), null);
    assertThat(harness.once(get(http, false, accept503)).success()).isTrue();
    assertThat(harness.once(get(http, false, UrlSpec.path("/missing"))).observation())
        .contains("status 404");
  }

  @Test
  void digestIsTheMd5OfTheBody() throws Exception {
    var good = new UrlSpec("/static/page.html", md5("hello fairway\n"), List.of(), null);
    assertThat(harness.once(get(http, false, good)).success()).isTrue();
    var bad = new UrlSpec("/static/page.html", md5("something else"), List.of(), null);
    CheckResult r = harness.once(get(http, false, bad));
    assertThat(r.success()).isFalse();
    assertThat(r.observation()).contains("digest " + md5("hello fairway\n"));
  }

  @Test
  void everyUrlMustPass() throws Exception {
    assertThat(
            harness
                .once(get(http, false, UrlSpec.path("/health"), UrlSpec.path("/static/page.html")))
                .success())
        .isTrue();
    CheckResult r = harness.once(get(http, false, UrlSpec.path("/health"), UrlSpec.path("/fail")));
    assertThat(r.success()).isFalse();
    assertThat(r.observation()).startsWith("/fail:");
  }

  @Test
  void virtualHostIsSentAsHostAndDefaultsToIpPort() throws Exception {
    var withHost = new UrlSpec("/host", md5("www.example.test"), List.of(), "www.example.test");
    assertThat(harness.once(get(http, false, withHost)).success()).isTrue();
    var noHost =
        new UrlSpec("/host", md5("127.0.0.1"), List.of(), null); // nginx's $host drops the port
    assertThat(harness.once(get(http, false, noHost)).success()).isTrue();
  }

  @Test
  void sslGetWithoutVerificationAcceptsASelfSignedCertificate() throws Exception {
    CheckResult r = harness.once(get(https, true, UrlSpec.path("/health")));
    assertThat(r.success()).as(r.observation()).isTrue();
  }

  @Test
  void sniNameIsSentOnlyWhenConfigured() throws Exception {
    var sni = new UrlSpec("/sni", md5("sni=check.test"), List.of(), null);
    var spec =
        HttpCheckSpec.builder(new InetSocketAddress("127.0.0.1", https), T)
            .tls(true)
            .urls(sni)
            .sniName("check.test")
            .build();
    assertThat(harness.once(spec).success()).isTrue();
    var noSni = new UrlSpec("/sni", md5("sni="), List.of(), null);
    assertThat(harness.once(get(https, true, noSni)).success()).isTrue();
  }

  @Test
  void verificationRejectsAnUntrustedCertificateAndAcceptsItsCa() throws Exception {
    var untrusted =
        HttpCheckSpec.builder(new InetSocketAddress("127.0.0.1", https), T)
            .tls(true)
            .urls(UrlSpec.path("/health"))
            .sniName("check.test")
            .verifyCertificate(true)
            .build();
    CheckResult r = harness.once(untrusted);
    assertThat(r.success()).isFalse();
    assertThat(r.observation()).containsIgnoringCase("certif");
    var trusted = untrusted.toBuilder().caFile(cert).build();
    CheckResult ok = harness.once(trusted);
    assertThat(ok.success()).as(ok.observation()).isTrue();
    var wrongName = trusted.toBuilder().sniName("other.test").build();
    assertThat(harness.once(wrongName).success()).isFalse();
  }

  @Test
  void http11SendsConnectionClose() throws Exception {
    var spec =
        HttpCheckSpec.builder(new InetSocketAddress("127.0.0.1", http), T)
            .urls(UrlSpec.path("/health"))
            .http11(true)
            .build();
    assertThat(harness.once(spec).success()).isTrue();
  }

  @Test
  void refusedConnectionAndSlowResponseFail() throws Exception {
    try (Socket closed = Programs.refusingPort()) {
      CheckResult refused =
          harness.once(get(closed.getLocalPort(), false, UrlSpec.path("/health")));
      assertThat(refused.success()).isFalse();
      assertThat(refused.observation()).isEqualTo("/health: connection refused");
    }
    var slow =
        HttpCheckSpec.builder(
                new InetSocketAddress("127.0.0.1", http),
                CheckTiming.of(Duration.ofSeconds(1), Duration.ofMillis(300)))
            .urls(UrlSpec.path("/slow"))
            .build();
    // limit_rate 1 delays the body by a second: longer than the 300 ms timeout.
    CheckResult r = harness.once(slow);
    assertThat(r.success()).as(r.observation()).isFalse();
  }

  @Test
  void unreadableCaFileIsALoadError() {
    var spec =
        HttpCheckSpec.builder(new InetSocketAddress("127.0.0.1", https), T)
            .tls(true)
            .urls(UrlSpec.path("/health"))
            .verifyCertificate(true)
            .caFile(dir.resolve("nope.pem"))
            .build();
    assertThatThrownBy(() -> harness.create(spec, 1))
        .isInstanceOf(CheckConfigException.class)
        .hasMessageContaining("cannot read CA file");
  }

  // ---- verify_cert (a Fairway extension) ----

  static final CheckTiming SLOW_OK = CheckTiming.of(Duration.ofSeconds(1), Duration.ofSeconds(8));

  static HttpCheckSpec verifying(@Nullable String sni, Path ca, UrlSpec url) {
    return HttpCheckSpec.builder(new InetSocketAddress("127.0.0.1", https), SLOW_OK)
        .tls(true)
        .urls(url)
        .sniName(sni)
        .verifyCertificate(true)
        .caFile(ca)
        .build();
  }

  @Test
  void verifyCertPassesWithTheRightCaAndFailsWithAWrongOne() throws Exception {
    CheckResult ok = harness.once(verifying("check.test", cert, UrlSpec.path("/health")));
    assertThat(ok.success()).as(ok.observation()).isTrue();
    CheckResult wrong = harness.once(verifying("check.test", otherCa, UrlSpec.path("/health")));
    assertThat(wrong.success()).isFalse();
    assertThat(wrong.observation()).startsWith("/health: certificate verify failed: ");
  }

  @Test
  void verifyCertChecksTheHostName() throws Exception {
    CheckResult sni = harness.once(verifying("other.test", cert, UrlSpec.path("/health")));
    assertThat(sni.observation())
        .isEqualTo(
            "/health: certificate verify failed: No subject alternative DNS name matching other.test found.");
    // Without enable_sni, the virtualhost (port dropped) is the name to verify, and still no SNI is
    // sent.
    var vhost = new UrlSpec("/sni", md5("sni="), List.of(), "check.test:443");
    CheckResult byVhost = harness.once(verifying(null, cert, vhost));
    assertThat(byVhost.success()).as(byVhost.observation()).isTrue();
    var otherHost = new UrlSpec("/health", null, List.of(), "other.test");
    assertThat(harness.once(verifying(null, cert, otherHost)).observation())
        .startsWith(
            "/health: certificate verify failed: No subject alternative DNS name matching other.test");
    // No name at all: the certificate must carry the IP connected to, and this one does not.
    assertThat(harness.once(verifying(null, cert, UrlSpec.path("/health"))).observation())
        .startsWith(
            "/health: certificate verify failed: No subject alternative names matching IP address 127.0.0.1");
  }

  // ---- url regex, against real bodies: "status: ok\nversion: 1.2.3\n" ("ok" starts at byte 8)
  // ----

  static CheckResult regex(UrlSpec.Regex r) throws Exception {
    return harness.once(get(http, false, new UrlSpec("/body", null, List.of(), null, r)));
  }

  static UrlSpec.Regex re(String pattern, int flags, boolean noMatch, long min, long max) {
    return new UrlSpec.Regex(pattern, flags, noMatch, min, max, false, false);
  }

  @Test
  void regexMustMatchTheBody() throws Exception {
    assertThat(regex(UrlSpec.Regex.of("version: \\d+\\.\\d+")).success()).isTrue();
    CheckResult r = regex(UrlSpec.Regex.of("status: down"));
    assertThat(r.success()).isFalse();
    assertThat(r.observation()).isEqualTo("/body: regex 'status: down' not found");
    // The status line and headers are not part of the subject.
    assertThat(regex(UrlSpec.Regex.of("HTTP/1")).success()).isFalse();
  }

  @Test
  void regexNoMatchInvertsTheSense() throws Exception {
    assertThat(regex(re("error", 0, true, 0, -1)).success()).isTrue();
    CheckResult r = regex(re("ok", 0, true, 0, -1));
    assertThat(r.success()).isFalse();
    assertThat(r.observation()).isEqualTo("/body: body matches regex 'ok' (regex_no_match)");
  }

  @Test
  void offsetsBoundWhereTheMatchStarts() throws Exception {
    assertThat(regex(re("ok", 0, false, 8, -1)).success()).isTrue();
    CheckResult late = regex(re("ok", 0, false, 9, -1));
    assertThat(late.success()).isFalse();
    assertThat(late.observation())
        .isEqualTo("/body: regex 'ok' not found starting at offset 9..end");
    assertThat(regex(re("ok", 0, false, 0, 8)).success()).isTrue();
    assertThat(regex(re("ok", 0, false, 0, 7)).success()).isFalse();
    // The match may run past the max offset; only its start is bounded.
    assertThat(regex(re("ok\\nversion", 0, false, 8, 8)).success()).isTrue();
    // Text before the min offset is visible to look-behind, as with PCRE2's start offset...
    assertThat(regex(re("(?<=status: )ok", 0, false, 8, -1)).success()).isTrue();
    // ...and the min offset is not a line start.
    assertThat(regex(re("^ok", 0, false, 8, -1)).success()).isFalse();
    assertThat(regex(re("ok", 0, false, 10_000, -1)).success()).isFalse();
  }

  @Test
  void regexOptionsChangeTheMatch() throws Exception {
    assertThat(regex(UrlSpec.Regex.of("STATUS: OK")).success()).isFalse();
    assertThat(
            regex(re("STATUS: OK", java.util.regex.Pattern.CASE_INSENSITIVE, false, 0, -1))
                .success())
        .isTrue();
    assertThat(regex(UrlSpec.Regex.of("^version")).success()).isFalse();
    assertThat(regex(re("^version", java.util.regex.Pattern.MULTILINE, false, 0, -1)).success())
        .isTrue();
    assertThat(regex(UrlSpec.Regex.of("ok.version")).success()).isFalse();
    assertThat(regex(re("ok.version", java.util.regex.Pattern.DOTALL, false, 0, -1)).success())
        .isTrue();
    // firstline: the match must start on the first line.
    assertThat(regex(new UrlSpec.Regex("version", 0, false, 0, -1, false, true)).success())
        .isFalse();
    assertThat(regex(new UrlSpec.Regex("ok", 0, false, 0, -1, false, true)).success()).isTrue();
  }

  @Test
  void aCatastrophicRegexFailsTheCheckInsteadOfStallingTheLoop() throws Exception {
    // (a+)+\1b against 64 a's backtracks 2^64 ways (the back reference defeats Java's loop
    // memoization):
    // the step budget stops it.
    long t0 = System.nanoTime();
    CheckResult r =
        harness.once(
            get(
                http,
                false,
                new UrlSpec("/aaaa", null, List.of(), null, UrlSpec.Regex.of("(a+)+\\1b"))));
    assertThat(r.success()).isFalse();
    assertThat(r.observation())
        .isEqualTo("/aaaa: regex '(a+)+\\1b' gave up after " + BodyRegex.budget(64) + " steps");
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(30));
  }

  // ---- url order ----

  @Test
  void oneAttemptOnAPartFetchesThatUrlOnly() throws Exception {
    // The engine walks the urls one per run, as keepalived does: part n is url n and nothing else.
    Checker c =
        harness.create(get(http, false, UrlSpec.path("/missing"), UrlSpec.path("/counted")), 1);
    long before = Files.exists(access) ? Files.readAllLines(access).size() : 0;
    CompletableFuture<CheckResult> f = new CompletableFuture<>();
    c.check(1, f::complete);
    assertThat(f.get(30, TimeUnit.SECONDS))
        .satisfies(
            r -> {
              assertThat(r.success()).isTrue();
              assertThat(r.observation()).isEqualTo("url /counted ok: status 200");
            });
    assertThat(Files.readAllLines(access)).hasSize((int) before + 1);
    f = new CompletableFuture<>();
    c.check(0, f::complete);
    assertThat(f.get(30, TimeUnit.SECONDS).observation()).startsWith("/missing: status 404");
    assertThat(Files.readAllLines(access)).hasSize((int) before + 1);
    // The one-shot check stops at the first failing url.
    assertThat(CheckerHarness.once(c).observation()).startsWith("/missing: status 404");
    assertThat(Files.readAllLines(access)).hasSize((int) before + 1);
    c.close();
  }

  @Test
  void sslGetEndsTheSessionWithCloseNotify() throws Exception {
    // keepalived's tls_compliant asks for this; Fairway always does it. openssl -msg logs every TLS
    // record
    // it reads ("<<<"), so a close_notify alert read from the checker shows up in its output.
    Path openssl = Programs.require("openssl");
    int port = Programs.freePort();
    Path out = dir.resolve("s_server.out");
    // stdin from /dev/null: with an open pipe there, s_server also waits on it and answers late.
    Process server =
        new ProcessBuilder(
                openssl.toString(),
                "s_server",
                "-accept",
                "127.0.0.1:" + port,
                "-cert",
                cert.toString(),
                "-key",
                dir.resolve("key.pem").toString(),
                "-www",
                "-msg")
            .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
            .redirectErrorStream(true)
            .redirectOutput(out.toFile())
            .start();
    try {
      // s_server serves one connection at a time: wait for its ACCEPT line rather than probing the
      // port.
      org.awaitility.Awaitility.await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> Programs.tail(out).contains("ACCEPT") || !server.isAlive());
      var spec =
          HttpCheckSpec.builder(new InetSocketAddress("127.0.0.1", port), SLOW_OK)
              .tls(true)
              .urls(UrlSpec.path("/"))
              .build();
      CheckResult r = harness.once(spec);
      assertThat(r.success()).as(r.observation()).isTrue();
      org.awaitility.Awaitility.await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  Programs.tail(out)
                          .contains("<<< TLS 1.3, Alert [length 0002], warning close_notify")
                      || Programs.tail(out)
                          .contains("<<< TLS 1.2, Alert [length 0002], warning close_notify"));
    } finally {
      Programs.stop(server);
    }
  }
}
