package io.fairway.proxy;

import static io.fairway.proxy.Fixtures.anyPort;
import static io.fairway.proxy.Fixtures.dest;
import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.config.model.BackendTls;
import io.fairway.config.model.ProxySettings;
import io.fairway.config.model.base.Location;
import io.fairway.plan.MemberPlan;
import io.fairway.proxy.plane.ProxyTable;
import io.fairway.proxy.table.ListenerSpec;
import io.fairway.proxy.table.Mode;
import io.fairway.proxy.table.RequestKey;
import io.fairway.table.Dest;
import io.fairway.table.Service;
import io.fairway.table.ServiceKey;
import io.fairway.testkit.ExternalPrograms;
import io.fairway.testkit.TestCerts;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code real_server ... { http2 }} against a real nginx: h2c by prior knowledge, and h2 by ALPN
 * over the server's {@code tls { }}. nginx answers with the protocol the request reached it in
 * ({@code $server_protocol}) and the number of the connection it came on ({@code $connection}), so
 * the tests see that HTTP/1.1 and HTTP/2 clients alike reach it over HTTP/2, and that concurrent
 * requests share one connection.
 */
class H2BackendTest {
  @AutoClose final Cleanup cleanup = new Cleanup();
  @TempDir static Path dir;
  static TestCerts.Pair app;

  private static final String ANSWER =
      "location / { default_type text/plain;"
          + " return 200 'proto=$server_protocol conn=$connection uri=$request_uri"
          + " host=$host xff=$http_x_forwarded_for\\n'; }";

  @BeforeAll
  static void certs() throws Exception {
    app = TestCerts.make(dir, "app", TestCerts.Kind.EC_PKCS8, "app.internal", "app.internal");
  }

  /** An h2c listener of Fairway (HTTP/1.1 and h2c) in front of {@code backend} with http2. */
  private InetSocketAddress fairway(InetSocketAddress backend, BackendTls tls) throws Exception {
    return fairway(cleanup, backend, tls);
  }

  /** As above, its table closed with {@code cleanup}. */
  static InetSocketAddress fairway(Cleanup cleanup, InetSocketAddress backend, BackendTls tls)
      throws Exception {
    return fairway(cleanup, tls, List.of(backend));
  }

  /** Several backends, all with http2 (and {@code tls} when not null), scheduled rr in order. */
  static InetSocketAddress fairway(
      Cleanup cleanup, BackendTls tls, List<InetSocketAddress> backends) throws Exception {
    return front(cleanup, tls, backends).vip();
  }

  /** A table with one virtual server, for tests that also look at it (its access log). */
  record Front(ProxyTable table, ServiceKey key, InetSocketAddress vip) {}

  static Front front(Cleanup cleanup, BackendTls tls, List<InetSocketAddress> backends)
      throws Exception {
    return front(
        cleanup, tls, backends, ProxyOptions.builder().ioThreads(1).build(), H2Proxy.h2c());
  }

  /** As above, with the proxy's {@code options} and the listener's {@code tls { }}. */
  static Front front(
      Cleanup cleanup,
      BackendTls tls,
      List<InetSocketAddress> backends,
      ProxyOptions options,
      io.fairway.config.model.TlsSettings listener)
      throws Exception {
    ServiceKey k = anyPort();
    Map<io.fairway.table.DestKey, MemberPlan> members = new java.util.LinkedHashMap<>();
    List<Dest> dests = new ArrayList<>();
    for (InetSocketAddress backend : backends) {
      Dest d = dest(backend, 1);
      dests.add(d);
      String name = "app" + dests.size();
      members.put(
          d.key(),
          MemberPlan.builder(name, d).weight(1).tls(Optional.ofNullable(tls)).http2(true).build());
    }
    ListenerSpec spec =
        new ListenerSpec(Mode.HTTP, RequestKey.CLIENT, null, members, null)
            .withProxy(ProxySettings.DEFAULTS.withTls(listener));
    ProxyTable t = cleanup.track(new ProxyTable(options, x -> spec));
    t.addService(Service.of(k, "rr"));
    for (Dest d : dests) {
      t.addDest(k, d);
    }
    return new Front(t, k, t.boundAddress(k));
  }

  private Nginx h2cNginx() throws Exception {
    Nginx.require();
    return cleanup.track(new Nginx("h2c", "http2", ANSWER));
  }

  private static String url(InetSocketAddress vip, String path) {
    return "http://127.0.0.1:" + vip.getPort() + path;
  }

  @Test
  void http11AndHttp2ClientsReachAnH2cBackendOverHttp2() throws Exception {
    ExternalPrograms.require("curl", "/usr/bin/curl");
    Front f = front(cleanup, null, List.of(h2cNginx().address()));
    InetSocketAddress vip = f.vip();
    io.fairway.proxy.accesslog.AccessLogWriter json =
        new io.fairway.proxy.accesslog.AccessLogWriter(
            dir.resolve("h2c.json"), io.fairway.proxy.accesslog.AccessLogFormat.JSON, 1024);
    f.table().setAccessLog(f.key(), io.fairway.proxy.accesslog.AccessLog.of(List.of(json)));
    assertThat(Http2Test.curl("-i", "--http1.1", url(vip, "/a?x=1")))
        .startsWith("HTTP/1.1 200")
        .contains("proto=HTTP/2.0")
        .contains("uri=/a?x=1")
        .contains("host=127.0.0.1")
        .contains("xff=127.0.0.1")
        .contains("exit=0");
    assertThat(Http2Test.curl("-i", "--http2-prior-knowledge", url(vip, "/b")))
        .startsWith("HTTP/2 200")
        .contains("proto=HTTP/2.0")
        .contains("uri=/b")
        .contains("exit=0");
    org.awaitility.Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> json.written() == 2);
    json.close();
    String log = java.nio.file.Files.readString(dir.resolve("h2c.json"));
    assertThat(log)
        .contains("\"protocol\":\"HTTP/1.1\"")
        .contains("\"protocol\":\"HTTP/2.0\"")
        .doesNotContain("\"backend_protocol\":\"HTTP/1.1\"");
    assertThat(log.split("\"backend_protocol\":\"HTTP/2.0\"", -1)).hasSize(3);
  }

  @Test
  void concurrentRequestsShareOneBackendConnection() throws Exception {
    ExternalPrograms.require("curl", "/usr/bin/curl");
    ExternalPrograms.require("nghttp", "/usr/bin/nghttp");
    InetSocketAddress vip = fairway(h2cNginx().address(), null);
    List<CompletableFuture<String>> calls = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      String path = "/c" + i;
      // HTTP/1.1 clients on connections of their own and HTTP/2 streams, all at once.
      calls.add(CompletableFuture.supplyAsync(() -> call("--http1.1", url(vip, path))));
    }
    // Three streams of one client connection at once (curl 7.88 cannot reuse an h2c connection).
    String multiplexed = Http2Test.run("nghttp", url(vip, "/m1"), url(vip, "/m2"), url(vip, "/m3"));
    Set<String> conns = new HashSet<>(connections(multiplexed));
    for (CompletableFuture<String> c : calls) {
      String r = c.get();
      assertThat(r).contains("proto=HTTP/2.0");
      conns.addAll(connections(r));
    }
    assertThat(multiplexed)
        .contains("uri=/m1")
        .contains("uri=/m2")
        .contains("uri=/m3")
        .contains("proto=HTTP/2.0")
        .contains("exit=0");
    assertThat(conns).as("nginx's connection numbers").hasSize(1);
  }

  @Test
  void h2OverTlsByAlpn() throws Exception {
    ExternalPrograms.require("curl", "/usr/bin/curl");
    Nginx.require();
    Nginx n =
        cleanup.track(
            new Nginx(
                "h2-tls",
                "ssl http2",
                "ssl_certificate "
                    + app.cert()
                    + "; ssl_certificate_key "
                    + app.key()
                    + "; "
                    + ANSWER));
    BackendTls tls =
        new BackendTls(
            new Location("test.conf", 1), app.cert().toString(), Optional.of("app.internal"), "d");
    InetSocketAddress vip = fairway(n.address(), tls);
    assertThat(Http2Test.curl("-i", "--http1.1", url(vip, "/t")))
        .startsWith("HTTP/1.1 200")
        .contains("proto=HTTP/2.0")
        .contains("exit=0");
    assertThat(Http2Test.curl("-i", "--http2-prior-knowledge", url(vip, "/t2")))
        .startsWith("HTTP/2 200")
        .contains("proto=HTTP/2.0");
  }

  /**
   * A backend that refuses every stream (RST_STREAM REFUSED_STREAM) beside nginx: each request,
   * bodyless POSTs among them (a refused stream was not processed, so any method may go elsewhere),
   * is answered by nginx, none with the 502 a backend failing under a POST gives.
   */
  @Test
  void aRefusedStreamIsRetriedOnAnotherServer() throws Exception {
    ExternalPrograms.require("curl", "/usr/bin/curl");
    RefusingH2Server refuser = cleanup.track(new RefusingH2Server());
    InetSocketAddress vip =
        fairway(cleanup, null, List.of(refuser.address(), h2cNginx().address()));
    for (int i = 0; i < 4; i++) {
      assertThat(Http2Test.curl("-i", "--http1.1", url(vip, "/r" + i)))
          .startsWith("HTTP/1.1 200")
          .contains("proto=HTTP/2.0");
    }
    int before = refuser.refused();
    for (int i = 0; i < 4; i++) {
      // Not idempotent: a backend that failed under it would not be retried (502).
      assertThat(Http2Test.curl("-i", "--http1.1", "-X", "POST", url(vip, "/post" + i)))
          .startsWith("HTTP/1.1 200");
    }
    assertThat(refuser.refused()).as("POSTs the refuser refused").isGreaterThan(before);
  }

  /**
   * A stream above the last stream id of the server's GOAWAY was not processed (RFC 9113 8.7): it
   * is retried on another server as a refused stream is, even when the request is not idempotent.
   */
  @Test
  void aStreamAboveTheGoAwaysLastStreamIsRetriedOnAnotherServer() throws Exception {
    ExternalPrograms.require("curl", "/usr/bin/curl");
    GoAwayH2Server goAway = cleanup.track(new GoAwayH2Server());
    InetSocketAddress vip = fairway(cleanup, null, List.of(goAway.address(), h2cNginx().address()));
    for (int i = 0; i < 4; i++) {
      assertThat(Http2Test.curl("-i", "--http1.1", "-X", "POST", url(vip, "/post" + i)))
          .startsWith("HTTP/1.1 200")
          .contains("proto=HTTP/2.0");
    }
    assertThat(goAway.refused()).as("streams the GOAWAY left unprocessed").isPositive();
  }

  /**
   * 8 MiB from nginx through one stream, to an HTTP/1.1 and an HTTP/2 client: far beyond the
   * stream's and the connection's windows, so it arrives whole only if Fairway reopens them as the
   * client takes the bytes.
   */
  @Test
  void aLargeBodyFlowsThroughTheStreamWindows() throws Exception {
    ExternalPrograms.require("curl", "/usr/bin/curl");
    Nginx.require();
    // Where nginx's worker (nobody) may read, unlike the test's temporary directory.
    Path root = java.nio.file.Files.createTempDirectory(Path.of("/tmp"), "fairway-www-");
    root.toFile().setReadable(true, false);
    root.toFile().setExecutable(true, false);
    byte[] blob = new byte[8 << 20];
    new java.util.Random(7).nextBytes(blob);
    cleanup.track(
        () -> {
          java.nio.file.Files.deleteIfExists(root.resolve("blob"));
          java.nio.file.Files.delete(root);
        });
    java.nio.file.Files.write(root.resolve("blob"), blob);
    root.resolve("blob").toFile().setReadable(true, false);
    Nginx n = cleanup.track(new Nginx("h2c-files", "http2", "location / { root " + root + "; }"));
    InetSocketAddress vip = fairway(n.address(), null);
    for (String version : List.of("--http1.1", "--http2-prior-knowledge")) {
      Path out = dir.resolve("got" + version);
      assertThat(
              Http2Test.curl(
                  version, "-o", out.toString(), "-w", "%{http_code}", url(vip, "/blob")))
          .startsWith("200")
          .contains("exit=0");
      assertThat(java.nio.file.Files.mismatch(out, root.resolve("blob"))).as(version).isEqualTo(-1);
    }
  }

  private static String call(String... args) {
    try {
      return Http2Test.curl(args);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static List<String> connections(String out) {
    List<String> c = new ArrayList<>();
    Matcher m = Pattern.compile("conn=(\\d+)").matcher(out);
    while (m.find()) {
      c.add(m.group(1));
    }
    assertThat(c).isNotEmpty();
    return c;
  }
}
