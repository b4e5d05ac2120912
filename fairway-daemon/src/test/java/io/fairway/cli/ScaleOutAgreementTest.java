package io.fairway.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stateless agreement, the ground ECMP or anycast in front of several Fairways stands on: two
 * {@code fairway run --userspace} processes with the same configuration (only their virtual
 * addresses differ, 127.0.3.1 and 127.0.3.2, since both share this host's loopback) choose the same
 * backend for each of 10,000 flows, for mh and sh (UDP flows from 10,000 client addresses) and
 * shard (HTTP, 10,000 URLs). Then one of the five backends is removed from both files and both
 * reload: the same flows move on both, for mh and shard about 1/5 of them and nothing but what was
 * on the removed backend (plus mh's small Maglev disruption); sh rebuilds its table round-robin, as
 * the kernel's does, so much more moves there (see docs/scale-out.md).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ScaleOutAgreementTest {
  static final int FLOWS = 10_000;
  static final int BACKENDS = 5;

  /** Client threads: a flow is one round trip through a proxy, mostly waiting. */
  static final int CLIENTS = 16;

  static final String[] NODES = {"127.0.3.1", "127.0.3.2"};
  @TempDir static Path dir;
  final List<HttpServer> http = new ArrayList<>();
  final List<DatagramSocket> udp = new ArrayList<>();
  final Process[] fairway = new Process[2];
  int mhPort;
  int shPort;
  int httpPort;

  @BeforeAll
  void start() throws Exception {
    for (int b = 1; b <= BACKENDS; b++) {
      http.add(httpBackend("b" + b));
      udp.add(udpBackend("b" + b));
    }
    mhPort = UserspaceUdpRunTest.freeUdpPort();
    shPort = UserspaceUdpRunTest.freeUdpPort();
    httpPort = UserspaceRunTest.freePort();
    String cp =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    for (int n = 0; n < 2; n++) {
      Path conf = dir.resolve("node" + n + ".conf");
      Files.writeString(conf, conf(NODES[n], List.of(1, 2, 3, 4, 5)));
      fairway[n] =
          new ProcessBuilder(
                  Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                  "-Xmx256m",
                  "-cp",
                  cp,
                  "io.fairway.cli.Main",
                  "run",
                  "--userspace",
                  "--admin",
                  "off",
                  "-f",
                  conf.toString())
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve("node" + n + ".log").toFile())
              .start();
    }
    for (String node : NODES) {
      await()
          .atMost(Duration.ofSeconds(90))
          .ignoreExceptions()
          .until(
              () ->
                  udpAsk(node, mhPort, 0).startsWith("b")
                      && udpAsk(node, shPort, 0).startsWith("b")
                      && httpAsk(client(), node, "/ready").startsWith("b"));
    }
  }

  @AfterAll
  void stop() throws Exception {
    for (Process p : fairway) {
      if (p != null && p.isAlive()) {
        p.destroy();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
          p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
      }
    }
    http.forEach(h -> h.stop(0));
    udp.forEach(DatagramSocket::close);
  }

  /** The one file both nodes run, but for the address their services listen on. */
  String conf(String vip, List<Integer> backends) {
    StringBuilder s = new StringBuilder("global_defs {\n lvs_timeouts udp 1\n}\n");
    for (String[] v :
        new String[][] {{"mh", Integer.toString(mhPort)}, {"sh", Integer.toString(shPort)}}) {
      s.append("virtual_server ")
          .append(vip)
          .append(' ')
          .append(v[1])
          .append(" {\n lb_algo ")
          .append(v[0])
          .append("\n lb_kind NAT\n protocol UDP\n");
      for (int b : backends) {
        s.append(" real_server 127.0.0.1 ")
            .append(udp.get(b - 1).getLocalPort())
            .append(" {\n  name b")
            .append(b)
            .append("\n }\n");
      }
      s.append("}\n");
    }
    s.append("virtual_server ")
        .append(vip)
        .append(' ')
        .append(httpPort)
        .append(" {\n lb_algo shard\n lb_kind HTTP\n protocol TCP\n shard {\n  by URL\n }\n");
    for (int b : backends) {
      s.append(" real_server 127.0.0.1 ")
          .append(http.get(b - 1).getAddress().getPort())
          .append(" {\n  name b")
          .append(b)
          .append("\n }\n");
    }
    return s.append("}\n").toString();
  }

  @Test
  void twoNodesAgreeOnEveryFlowAndMoveTheSameOnesWhenABackendGoes() throws Exception {
    long t0 = System.nanoTime();
    List<List<String>> mh = udpFlows(mhPort);
    List<List<String>> sh = udpFlows(shPort);
    List<List<String>> shard = httpFlows();
    for (List<List<String>> scheme : List.of(mh, sh, shard)) {
      assertThat(scheme.get(1)).as("node 2 chose what node 1 chose").isEqualTo(scheme.get(0));
      assertThat(scheme.get(0)).as("every flow answered").allMatch(s -> s.startsWith("b"));
      assertThat(scheme.get(0).stream().distinct())
          .as("the flows spread over every backend")
          .hasSize(BACKENDS);
    }

    for (int n = 0; n < 2; n++) {
      Files.writeString(dir.resolve("node" + n + ".conf"), conf(NODES[n], List.of(1, 2, 4, 5)));
      assertThat(
              new ProcessBuilder("kill", "-HUP", Long.toString(fairway[n].pid())).start().waitFor())
          .isZero();
    }
    for (int n = 0; n < 2; n++) {
      Path log = dir.resolve("node" + n + ".log");
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> Files.readString(log).contains("reloaded "));
    }
    List<List<String>> mh2 = udpFlows(mhPort);
    List<List<String>> sh2 = udpFlows(shPort);
    List<List<String>> shard2 = httpFlows();
    long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);

    StringBuilder report = new StringBuilder();
    for (Object[] s : new Object[][] {{"mh", mh, mh2}, {"sh", sh, sh2}, {"shard", shard, shard2}}) {
      @SuppressWarnings("unchecked")
      List<List<String>> before = (List<List<String>>) s[1];
      @SuppressWarnings("unchecked")
      List<List<String>> after = (List<List<String>>) s[2];
      assertThat(after.get(1))
          .as(s[0] + " after the removal: node 2 chose what node 1 chose")
          .isEqualTo(after.get(0));
      assertThat(after.get(0))
          .as(s[0] + ": nothing goes to the removed backend")
          .doesNotContain("b3")
          .allMatch(x -> x.startsWith("b"));
      List<Integer> moved = moved(before.get(0), after.get(0));
      assertThat(moved)
          .as(s[0] + ": the same flows moved on both")
          .isEqualTo(moved(before.get(1), after.get(1)));
      long onRemoved = before.get(0).stream().filter("b3"::equals).count();
      long others = moved.stream().filter(i -> !before.get(0).get(i).equals("b3")).count();
      report.append(
          String.format(
              "%s: %d of %d flows moved (%.1f %%), %d of them were on the removed backend%n",
              s[0], moved.size(), FLOWS, 100.0 * moved.size() / FLOWS, moved.size() - others));
      assertThat(moved.size())
          .as(s[0] + ": whatever was on the removed backend moves")
          .isGreaterThanOrEqualTo((int) onRemoved);
      if (!s[0].equals("sh")) {
        assertThat(moved.size() / (double) FLOWS)
            .as(s[0] + ": about 1/N move\n" + report)
            .isBetween(0.15, 0.25);
      }
      if (s[0].equals("shard")) {
        assertThat(others)
            .as("shard: consistent hashing moves only the removed backend's keys")
            .isZero();
      }
      if (s[0].equals("mh")) {
        assertThat(others)
            .as("mh: Maglev's disruption beyond the removed backend's flows")
            .isLessThan(FLOWS / 50);
      }
    }
    Files.writeString(
        Path.of("target", "scale-out-agreement.txt"), report + "took " + took + " ms\n");
    System.out.print(report);
  }

  static List<Integer> moved(List<String> before, List<String> after) {
    return IntStream.range(0, before.size())
        .filter(i -> !before.get(i).equals(after.get(i)))
        .boxed()
        .toList();
  }

  /**
   * Flow {@code i} comes from client address 127.2.x.y: what each node's service answers for it.
   */
  List<List<String>> udpFlows(int port) throws Exception {
    return inParallel(
        i -> {
          // One socket per flow and pass: a new client port is a new flow, scheduled afresh; sh and
          // mh
          // (without -port flags) look at the address only.
          try (DatagramSocket s = new DatagramSocket(new InetSocketAddress(source(i), 0))) {
            s.setSoTimeout(5000);
            return new String[] {udpAsk(s, NODES[0], port), udpAsk(s, NODES[1], port)};
          }
        });
  }

  /**
   * What flow i got from each node, asked by {@link #CLIENTS} threads at once (each waits on a
   * round trip).
   */
  static List<List<String>> inParallel(Flow flow) throws Exception {
    String[][] got = new String[FLOWS][];
    ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
    try {
      List<Future<?>> parts = new ArrayList<>();
      for (int c = 0; c < CLIENTS; c++) {
        int first = c;
        parts.add(
            pool.submit(
                () -> {
                  for (int i = first; i < FLOWS; i += CLIENTS) {
                    got[i] = flow.ask(i);
                  }
                  return null;
                }));
      }
      for (Future<?> f : parts) {
        f.get(10, TimeUnit.MINUTES);
      }
    } finally {
      pool.shutdownNow();
    }
    List<List<String>> out = List.of(new ArrayList<>(), new ArrayList<>());
    for (String[] g : got) {
      out.get(0).add(g[0]);
      out.get(1).add(g[1]);
    }
    return out;
  }

  /** Asks both nodes about flow i. */
  interface Flow {
    String[] ask(int i) throws Exception;
  }

  static InetAddress source(int i) throws IOException {
    return InetAddress.getByAddress(new byte[] {127, 2, (byte) (i / 250), (byte) (i % 250 + 1)});
  }

  static String udpAsk(String node, int port, int flow) throws IOException {
    try (DatagramSocket s = new DatagramSocket(new InetSocketAddress(source(flow), 0))) {
      s.setSoTimeout(2000);
      return udpAsk(s, node, port);
    }
  }

  static String udpAsk(DatagramSocket s, String node, int port) throws IOException {
    s.send(new DatagramPacket(new byte[] {'?'}, 1, new InetSocketAddress(node, port)));
    DatagramPacket p = new DatagramPacket(new byte[64], 64);
    s.receive(p);
    return new String(p.getData(), 0, p.getLength(), StandardCharsets.US_ASCII);
  }

  /** Flow {@code i} is URL /k/i: what each node's shard service answers for it. */
  List<List<String>> httpFlows() throws Exception {
    HttpClient c = client();
    return inParallel(
        i -> new String[] {httpAsk(c, NODES[0], "/k/" + i), httpAsk(c, NODES[1], "/k/" + i)});
  }

  static HttpClient client() {
    return HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(5))
        .build();
  }

  String httpAsk(HttpClient c, String node, String path) throws Exception {
    HttpResponse<String> r =
        c.send(
            HttpRequest.newBuilder(URI.create("http://" + node + ":" + httpPort + path))
                .timeout(Duration.ofSeconds(10))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    return r.statusCode() == 200 ? r.body() : "HTTP " + r.statusCode();
  }

  static HttpServer httpBackend(String name) throws IOException {
    HttpServer s =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
    s.createContext(
        "/",
        ex -> {
          byte[] body = name.getBytes(StandardCharsets.US_ASCII);
          ex.sendResponseHeaders(200, body.length);
          ex.getResponseBody().write(body);
          ex.close();
        });
    s.setExecutor(null);
    s.start();
    return s;
  }

  static DatagramSocket udpBackend(String name) throws IOException {
    DatagramSocket s =
        new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    byte[] answer = name.getBytes(StandardCharsets.US_ASCII);
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
            "scale-out-udp-" + name);
    t.setDaemon(true);
    t.start();
    return s;
  }
}
