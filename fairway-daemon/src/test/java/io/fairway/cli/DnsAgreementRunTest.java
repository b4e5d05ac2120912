package io.fairway.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.fairway.daemon.Json;
import io.fairway.daemon.discovery.Named;
import io.fairway.testkit.FairwayProcess;
import io.fairway.testkit.HttpBackend;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ProxySelector;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two {@code fairway run --userspace} processes with the same file (but for the address their
 * services listen on) take their real servers from one named, whose {@code rrset-order cyclic}
 * rotates every answer it sends: each process asks every second (TTL 1) and so sees the records in
 * changing orders, and the two at different points of the rotation. Both must pick the same server
 * for each of 300 URLs under {@code shard} and {@code hash} (SRV records) and each of 300 UDP flows
 * under {@code mh} (A records): discovered servers are kept in one canonical order, not DNS's.
 */
class DnsAgreementRunTest {
  static final int KEYS = 300;
  static final int BACKENDS = 5;
  static final String[] NODES = {"127.0.4.1", "127.0.4.2"};

  @TempDir Path dir;
  final List<HttpBackend> http = new ArrayList<>();
  final List<DatagramSocket> udp = new ArrayList<>();
  final FairwayProcess[] fairway = new FairwayProcess[2];
  final int[] admin = new int[2];
  final HttpClient client =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .proxy(ProxySelector.of(null))
          .connectTimeout(Duration.ofSeconds(5))
          .build();

  // Started by each test that needs it, before any use; closed after each when started.
  @SuppressWarnings("NullAway.Init")
  Named named;

  int shardPort;
  int hashPort;
  int mhPort;

  @AfterEach
  void cleanUp() throws Exception {
    for (FairwayProcess f : fairway) {
      if (f != null) {
        f.close();
      }
    }
    if (named != null) {
      named.close();
    }
    http.forEach(HttpBackend::close);
    udp.forEach(DatagramSocket::close);
  }

  /** UDP backend {@code b<i>} on 127.0.0.2<i>, every one on the same port (A records give one). */
  static DatagramSocket udpBackend(int i, int port) throws IOException {
    InetAddress a = InetAddress.getByAddress(new byte[] {127, 0, 0, (byte) (20 + i)});
    DatagramSocket s = new DatagramSocket(new InetSocketAddress(a, port));
    byte[] answer = ("b" + i).getBytes(StandardCharsets.US_ASCII);
    Thread t =
        new Thread(
            () -> {
              byte[] buf = new byte[64];
              while (!s.isClosed()) {
                try {
                  DatagramPacket p = new DatagramPacket(buf, buf.length);
                  s.receive(p);
                  s.send(new DatagramPacket(answer, answer.length, p.getSocketAddress()));
                } catch (IOException e) {
                  return; // closed at the end
                }
              }
            },
            "dns-agreement-udp-b" + i);
    t.setDaemon(true);
    t.start();
    return s;
  }

  String zone() throws IOException {
    StringBuilder z = new StringBuilder("web IN A 127.0.0.1\n");
    for (int i = 1; i <= BACKENDS; i++) {
      http.add(new HttpBackend("b" + i));
      z.append("_web._tcp IN SRV 0 1 ").append(http.get(i - 1).port()).append(" web\n");
      z.append("udp IN A 127.0.0.").append(20 + i).append('\n');
    }
    return z.toString();
  }

  String conf(String vip, int udpPort) {
    String ns = "  nameserver 127.0.0.1 " + named.port + "\n  refresh 1\n";
    StringBuilder s = new StringBuilder("global_defs {\n lvs_timeouts udp 1\n}\n");
    for (String[] v : new String[][] {{"shard", "" + shardPort}, {"hash", "" + hashPort}}) {
      s.append("virtual_server ")
          .append(vip)
          .append(' ')
          .append(v[1])
          .append(" {\n lb_algo ")
          .append(v[0])
          .append("\n lb_kind HTTP\n protocol TCP\n ")
          .append(v[0])
          .append(" {\n  by URL\n }\n real_server_dns _web._tcp.pool.test {\n  type SRV\n")
          .append(ns)
          .append(" }\n}\n");
    }
    return s.append("virtual_server ")
        .append(vip)
        .append(' ')
        .append(mhPort)
        .append(" {\n lb_algo mh\n lb_kind NAT\n protocol UDP\n")
        .append(" real_server_dns udp.pool.test {\n  type A\n  port ")
        .append(udpPort)
        .append('\n')
        .append(ns)
        .append(" }\n}\n")
        .toString();
  }

  @Test
  void twoDaemonsPickTheSameServerPerKeyWhateverOrderNamedAnswersIn() throws Exception {
    long t0 = System.nanoTime();
    int udpPort = UserspaceUdpRunTest.freeUdpPort();
    for (int i = 1; i <= BACKENDS; i++) {
      udp.add(udpBackend(i, udpPort));
    }
    named = new Named(dir, zone());
    // named rotates: two queries in a row list the records in different orders.
    assertThat(first(named.digUdp("udp.pool.test", "A"), "A"))
        .isNotEqualTo(first(named.digUdp("udp.pool.test", "A"), "A"));
    assertThat(first(named.digUdp("_web._tcp.pool.test", "SRV"), "SRV"))
        .isNotEqualTo(first(named.digUdp("_web._tcp.pool.test", "SRV"), "SRV"));
    shardPort = UserspaceRunTest.freePort();
    hashPort = UserspaceRunTest.freePort();
    mhPort = UserspaceUdpRunTest.freeUdpPort();
    for (int n = 0; n < 2; n++) {
      Path conf = dir.resolve("node" + n + ".conf");
      Files.writeString(conf, conf(NODES[n], udpPort));
      admin[n] = UserspaceRunTest.freePort();
      fairway[n] =
          FairwayProcess.fromTestClasspath("-Xmx256m")
              .env("FAIRWAY_RUNTIME_DIR", dir.resolve("run" + n).toString())
              .log(dir.resolve("node" + n + ".log"))
              .start(
                  "run", "--userspace", "-f", conf.toString(), "--admin", "127.0.0.1:" + admin[n]);
    }
    // Every server of every block in each process's pools (the last flow of each kind answered
    // by each backend would need them all; their count in status is exact).
    for (int n = 0; n < 2; n++) {
      int a = admin[n];
      await()
          .atMost(Duration.ofSeconds(60))
          .ignoreExceptions()
          .until(() -> upServers(a) == 3 * BACKENDS);
    }

    long started = System.nanoTime();
    List<List<String>> shard = new ArrayList<>();
    List<List<String>> hash = new ArrayList<>();
    List<List<String>> mh = new ArrayList<>();
    // Each node and scheme asked at once: every key is a round trip, mostly waiting.
    ExecutorService pool = Executors.newFixedThreadPool(6);
    try {
      List<Future<List<String>>> asked = new ArrayList<>();
      for (String node : NODES) {
        asked.add(pool.submit(() -> urls(node, shardPort)));
        asked.add(pool.submit(() -> urls(node, hashPort)));
        asked.add(pool.submit(() -> flows(node)));
      }
      for (int n = 0; n < NODES.length; n++) {
        shard.add(asked.get(3 * n).get(2, TimeUnit.MINUTES));
        hash.add(asked.get(3 * n + 1).get(2, TimeUnit.MINUTES));
        mh.add(asked.get(3 * n + 2).get(2, TimeUnit.MINUTES));
      }
    } finally {
      pool.shutdownNow();
    }
    System.out.printf(
        "DnsAgreementRunTest: both up after %d ms, keys asked in %d ms%n",
        TimeUnit.NANOSECONDS.toMillis(started - t0),
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
    for (Object[] s : new Object[][] {{"shard", shard}, {"hash", hash}, {"mh", mh}}) {
      @SuppressWarnings("unchecked")
      List<List<String>> picks = (List<List<String>>) s[1];
      assertThat(picks.get(0)).as(s[0] + ": every key answered").allMatch(x -> x.startsWith("b"));
      assertThat(picks.get(1))
          .as(s[0] + ": node 2 chose what node 1 chose")
          .isEqualTo(picks.get(0));
      assertThat(picks.get(0).stream().distinct().count())
          .as(s[0] + ": the keys spread over the servers")
          .isGreaterThan(2);
    }
    // Each process asked named more than once per block, at different points of its rotation.
    for (int a : admin) {
      for (JsonNode b : Json.mapper().readTree(get(a, "/api/v1/dns")).get("blocks")) {
        assertThat(b.get("resolutions").get("found").asLong()).isGreaterThan(1);
      }
    }
  }

  /** The first record of a type in dig's answer section. */
  static String first(String dig, String type) {
    Matcher m = Pattern.compile("(?m)^[^;].*\\sIN\\s+" + type + "\\s+(.+)$").matcher(dig);
    if (!m.find()) {
      throw new AssertionError("no " + type + " record in: " + dig);
    }
    return m.group(1);
  }

  String get(int adminPort, String path) throws Exception {
    return client
        .send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + path))
                .timeout(Duration.ofSeconds(5))
                .build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  /** Real servers up and serving in every virtual server of one process. */
  int upServers(int adminPort) throws Exception {
    int up = 0;
    for (JsonNode vs : Json.mapper().readTree(get(adminPort, "/api/v1/services"))) {
      for (JsonNode s : vs.get("servers")) {
        up += s.get("state").asText().equals("up") ? 1 : 0;
      }
    }
    return up;
  }

  /** URL /k/i for each key: which backend answered. */
  List<String> urls(String node, int port) throws Exception {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < KEYS; i++) {
      HttpResponse<String> r =
          client.send(
              HttpRequest.newBuilder(URI.create("http://" + node + ":" + port + "/k/" + i))
                  .timeout(Duration.ofSeconds(10))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      out.add(r.statusCode() == 200 ? r.body() : "HTTP " + r.statusCode());
    }
    return out;
  }

  /** Flow i comes from client address 127.2.x.y (mh hashes the address): its backend. */
  List<String> flows(String node) throws Exception {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < KEYS; i++) {
      try (DatagramSocket s =
          new DatagramSocket(new InetSocketAddress(ScaleOutAgreementTest.source(i), 0))) {
        s.setSoTimeout(5000);
        out.add(ScaleOutAgreementTest.udpAsk(s, node, mhPort));
      }
    }
    return out;
  }
}
