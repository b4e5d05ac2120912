package io.fairway.proxy;

import static io.fairway.proxy.Fixtures.anyPort;
import static io.fairway.proxy.Fixtures.dest;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fairway.director.Backend;
import io.fairway.director.Member;
import io.fairway.director.Request;
import io.fairway.director.sched.Connection;
import io.fairway.director.sched.DestSpec;
import io.fairway.director.sched.Flow;
import io.fairway.director.sched.Schedulers;
import io.fairway.director.varnish.HashDirector;
import io.fairway.director.varnish.ShardDirector;
import io.fairway.proxy.plane.ProxyTable;
import io.fairway.proxy.table.ListenerSpec;
import io.fairway.proxy.table.RequestKey;
import io.fairway.table.Service;
import io.fairway.table.ServiceKey;
import io.fairway.testkit.EchoServer;
import io.fairway.testkit.HttpBackend;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every scheduler and director, driven through the data plane over loopback, sends connections
 * where its algorithm says. The kernel schedulers are checked connection by connection against the
 * director library's IPVS model fed the same flows and the same accounting; the Varnish directors
 * against the library's directors given the same keys.
 */
class DirectorDistributionTest {
  private static final int[] WEIGHTS = {1, 2, 3};
  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final List<EchoServer> echo = new ArrayList<>();
  private final List<HttpBackend> http = new ArrayList<>();

  @BeforeEach
  void backends() throws Exception {
    for (int i = 1; i <= 3; i++) {
      EchoServer e = new EchoServer("b" + i);
      HttpBackend h = new HttpBackend("b" + i);
      echo.add(e);
      http.add(h);
      closeables.add(e);
      closeables.add(h);
    }
  }

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable c : closeables) {
      c.close();
    }
  }

  private ProxyTable table(ListenerSpec spec) {
    ProxyTable t = new ProxyTable(ProxyOptions.builder().ioThreads(1).build(), k -> spec);
    closeables.add(0, t);
    return t;
  }

  @ParameterizedTest
  @ValueSource(strings = {"rr", "wrr", "lc", "wlc", "sed", "nq", "fo", "ovf", "sh", "dh", "mh"})
  void kernelSchedulersMatchTheIpvsModelConnectionByConnection(String sched) throws Exception {
    ProxyTable t = table(ListenerSpec.tcp());
    ServiceKey k = anyPort();
    t.addService(Service.of(k, sched));
    List<DestSpec> specs = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      EchoServer e = echo.get(i);
      t.addDest(k, dest(e.address(), WEIGHTS[i]));
      specs.add(new DestSpec("b" + (i + 1), e.address().getAddress(), e.port(), WEIGHTS[i], 0, 0));
    }
    InetSocketAddress vip = t.boundAddress(k);
    var model = Schedulers.service(sched, List.of(), specs);

    List<String> got = new ArrayList<>();
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 18; i++) {
      // Different loopback source addresses, so the hashing schedulers have something to hash;
      // 9 of them, twice each: mh's table depends on the servers' (random) ports, and with only a
      // few sources all of them could land on one server.
      InetAddress src = InetAddress.getByAddress(new byte[] {127, 0, 0, (byte) (1 + i % 9)});
      Connection c = model.open(new Flow(src, 0, vip.getAddress(), vip.getPort()));
      expected.add(c.dest().name());
      c.closing();
      try (Socket s = new Socket()) {
        s.bind(new InetSocketAddress(src, 0));
        s.connect(vip, 2000);
        s.setSoTimeout(3000);
        got.add(
            new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII))
                .readLine());
      }
      await()
          .pollInterval(Duration.ofMillis(5))
          .atMost(Duration.ofSeconds(3))
          .until(() -> t.list().get(0).dests().stream().allMatch(d -> d.activeConnections() == 0));
    }
    assertThat(got).as(sched).isEqualTo(expected);
    if (!List.of("dh", "fo", "ovf", "sed", "nq").contains(sched)) {
      assertThat(new java.util.HashSet<>(got))
          .as(sched + " uses more than one server")
          .hasSizeGreaterThan(1);
    }
  }

  private final HttpClient client =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(2))
          .build();

  private String get(InetSocketAddress vip, String path) throws Exception {
    HttpResponse<String> r =
        client.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + vip.getPort() + path)).build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
    return r.body();
  }

  private InetSocketAddress httpService(ProxyTable t, String algorithm) throws Exception {
    ServiceKey k = anyPort();
    t.addService(Service.of(k, algorithm));
    for (int i = 0; i < 3; i++) {
      t.addDest(k, dest(http.get(i).address(), WEIGHTS[i]));
    }
    return t.boundAddress(k);
  }

  @ParameterizedTest
  @ValueSource(strings = {"round_robin", "fallback", "random"})
  void varnishDirectorsWithoutKeys(String algorithm) throws Exception {
    InetSocketAddress vip = httpService(table(ListenerSpec.http(RequestKey.CLIENT)), algorithm);
    Map<String, Integer> m = new HashMap<>();
    int n = algorithm.equals("random") ? 600 : 30;
    for (int i = 0; i < n; i++) {
      m.merge(get(vip, "/"), 1, Integer::sum);
    }
    switch (algorithm) {
      case "round_robin" ->
          assertThat(m).containsEntry("b1", 10).containsEntry("b2", 10).containsEntry("b3", 10);
      case "fallback" -> assertThat(m).containsOnlyKeys("b1");
      default -> {
        // Weighted 1:2:3 → expected 100/200/300 of 600; generous bounds, still failing for uniform.
        assertThat(m.get("b1")).isBetween(55, 150);
        assertThat(m.get("b3")).isBetween(240, 360);
      }
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"hash", "shard"})
  void hashingDirectorsSendEachUrlWhereVarnishWould(String algorithm) throws Exception {
    InetSocketAddress vip = httpService(table(ListenerSpec.http(RequestKey.URL)), algorithm);
    var oracle = algorithm.equals("hash") ? new HashDirector("o") : new ShardDirector("o");
    List<Member> members = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      // The table names a member by its address, which is what shard hashes into its ring.
      String name = "127.0.0.1:" + http.get(i).port();
      members.add(new Member(Backend.named(name), WEIGHTS[i], true, 0, null, Double.NaN));
    }
    oracle.replaceAll(members);
    Map<String, String> nameByAddr = new HashMap<>();
    for (HttpBackend h : http) {
      nameByAddr.put("127.0.0.1:" + h.port(), h.name);
    }
    Map<String, Integer> spread = new HashMap<>();
    for (int i = 0; i < 60; i++) {
      String url = "/obj/" + i;
      String expected = nameByAddr.get(oracle.pick(Request.ofString(url)).name());
      String first = get(vip, url);
      assertThat(first).as(url).isEqualTo(expected);
      assertThat(get(vip, url)).as(url + " again").isEqualTo(first);
      spread.merge(first, 1, Integer::sum);
    }
    assertThat(spread).hasSize(3);
  }

  @ParameterizedTest
  @ValueSource(strings = {"header", "cookie"})
  void shardByHeaderOrCookieKeepsAUserOnOneServer(String source) throws Exception {
    RequestKey ks =
        source.equals("header") ? RequestKey.header("X-User") : RequestKey.cookie("sid");
    InetSocketAddress vip = httpService(table(ListenerSpec.http(ks)), "shard");
    Map<String, String> firstSeen = new HashMap<>();
    for (int round = 0; round < 3; round++) {
      for (int u = 0; u < 20; u++) {
        HttpRequest.Builder b =
            HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + vip.getPort() + "/page" + round));
        b =
            source.equals("header")
                ? b.header("X-User", "user" + u)
                : b.header("Cookie", "a=1; sid=user" + u);
        String got = client.send(b.build(), HttpResponse.BodyHandlers.ofString()).body();
        assertThat(
                firstSeen.putIfAbsent("user" + u, got) == null
                    || firstSeen.get("user" + u).equals(got))
            .isTrue();
      }
    }
    assertThat(new java.util.HashSet<>(firstSeen.values())).hasSizeGreaterThan(1);
  }
}
