package io.fairway.daemon.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.daemon.balance.Balancer;
import io.fairway.daemon.balance.BalancerFactory;
import io.fairway.table.Service;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The backend {@code fairway pick} names is the backend the request reaches through the running
 * proxy: for the kernel schedulers with a key (sh and mh by the client's source address, chosen
 * from 127.0.0.0/8; dh by the destination, a group of 20 virtual addresses) and for the Varnish
 * directors (round_robin in sequence, fallback, hash and shard by URL). random is left out: its
 * draws come from a per-thread generator in the data plane, so no pick can predict them.
 */
class PickMatchesProxyTest {
  static final int N = 120;
  @TempDir static Path dir;
  static Backends backends;
  static UserspaceDaemon fairway;
  static int port;
  static final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(2))
          .build();

  static String servers() {
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < 5; i++) {
      s.append(" real_server 127.0.0.1 ")
          .append(backends.port("b" + i))
          .append(" {\n  name b")
          .append(i)
          .append("\n  weight ")
          .append(i + 1)
          .append("\n }\n");
    }
    return s.toString();
  }

  static String vs(String name, String addr, int vport, String algo, String kind, String extra) {
    return "virtual_server "
        + addr
        + " "
        + vport
        + " {\n name "
        + name
        + "\n lb_algo "
        + algo
        + "\n lb_kind "
        + kind
        + "\n protocol TCP\n"
        + extra
        + servers()
        + "}\n";
  }

  @BeforeAll
  static void start() throws Exception {
    backends = new Backends(5, Set.of());
    port = UserspaceDaemon.freePort();
    StringBuilder c =
        new StringBuilder("virtual_server_group dhgroup {\n  127.0.1.1-20 " + port + "\n}\n");
    c.append(vs("sh", "127.0.0.1", port, "sh", "PROXY", ""));
    c.append(vs("mh", "127.0.0.2", port, "mh", "PROXY", ""));
    c.append("virtual_server group dhgroup {\n name dh\n lb_algo dh\n lb_kind NAT\n protocol TCP\n")
        .append(servers())
        .append("}\n");
    c.append(vs("round_robin", "127.0.0.3", port, "round_robin", "HTTP", ""));
    c.append(vs("fallback", "127.0.0.4", port, "fallback", "HTTP", ""));
    c.append(vs("hash", "127.0.0.5", port, "hash", "HTTP", " hash {\n  by URL\n }\n"));
    c.append(
        vs("shard", "127.0.0.6", port, "shard", "HTTP", " shard {\n  by URL\n  replicas 11\n }\n"));
    fairway = new UserspaceDaemon(dir.resolve("keepalived.conf"), c.toString());
  }

  @AfterAll
  static void stop() throws Exception {
    if (fairway != null) {
      fairway.close();
    }
    if (backends != null) {
      backends.close();
    }
  }

  static Balancer pick(String vs) {
    return BalancerFactory.build(fairway.plan(vs), BalancerFactory.Options.NONE);
  }

  /** One request over L4 on a fresh connection from {@code source}. */
  static String l4(String source, String vip) throws IOException {
    try (Socket s = new Socket()) {
      s.bind(new InetSocketAddress(InetAddress.getByName(source), 0));
      s.connect(new InetSocketAddress(InetAddress.getByName(vip), port), 3000);
      s.setSoTimeout(5000);
      s.getOutputStream()
          .write("GET / HTTP/1.0\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      String r = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      return r.substring(r.indexOf("\r\n\r\n") + 4);
    }
  }

  static String http(String vip, String url) throws Exception {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create("http://" + vip + ":" + port + url))
                .timeout(Duration.ofSeconds(5))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    return r.body();
  }

  void bySource(String vs, String vip) throws Exception {
    Balancer b = pick(vs);
    List<String> want = new ArrayList<>();
    List<String> got = new ArrayList<>();
    for (int i = 1; i <= N; i++) {
      String src = "127.0." + (2 + i / 250) + "." + (1 + i % 250);
      want.add(b.pick(src));
      got.add(l4(src, vip));
    }
    assertThat(new HashSet<>(want)).hasSizeGreaterThan(2);
    assertThat(got).isEqualTo(want);
  }

  @Test
  void sh() throws Exception {
    bySource("sh", "127.0.0.1");
  }

  @Test
  void mh() throws Exception {
    bySource("mh", "127.0.0.2");
  }

  @Test
  void dh() throws Exception {
    Balancer b = pick("dh");
    List<String> want = new ArrayList<>();
    List<String> got = new ArrayList<>();
    for (Service s : fairway.plan("dh").services()) {
      String vip = s.key().address().getHostAddress();
      want.add(b.pick(vip + ":" + port));
      got.add(l4("127.0.0.1", vip));
    }
    assertThat(want).hasSize(20);
    assertThat(new HashSet<>(want)).hasSizeGreaterThan(2);
    assertThat(got).isEqualTo(want);
  }

  void byUrl(String vs, String vip, int distinct) throws Exception {
    Balancer b = pick(vs);
    List<String> want = new ArrayList<>();
    List<String> got = new ArrayList<>();
    for (int i = 0; i < N; i++) {
      String url = "/obj/" + i;
      want.add(b.pick(url));
      got.add(http(vip, url));
    }
    assertThat(new HashSet<>(want)).hasSize(distinct);
    assertThat(got).isEqualTo(want);
  }

  @Test
  void roundRobinInSequence() throws Exception {
    byUrl("round_robin", "127.0.0.3", 5);
  }

  @Test
  void fallback() throws Exception {
    byUrl("fallback", "127.0.0.4", 1);
  }

  @Test
  void hash() throws Exception {
    byUrl("hash", "127.0.0.5", 5);
  }

  @Test
  void shard() throws Exception {
    byUrl("shard", "127.0.0.6", 5);
  }

  @Test
  void statusSaysHowThePlanSelects() {
    assertThat(fairway.daemon.status())
        .contains(
            "# shard: selects by shard replicas 11 by URL healthy CHOSEN warmup 0.0 rampup 0.0s, key URL")
        .contains("# mh: selects by mh, key CLIENT_IP");
  }
}
