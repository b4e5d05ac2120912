package io.fairway.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fairway.director.sched.DestSpec;
import io.fairway.director.sched.SchedService;
import io.fairway.director.sched.Schedulers;
import io.fairway.testkit.HttpBackend;
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
import java.util.Objects;
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
 * backend for each of 4,000 flows, for mh and sh (UDP flows from 4,000 client addresses) and shard
 * (HTTP, 4,000 URLs). Then one of the five backends is removed from both files and both reload: the
 * same flows move on both, for mh and shard about 1/5 of them and nothing but what was on the
 * removed backend (plus mh's small Maglev disruption); sh rebuilds its table round-robin, as the
 * kernel's does, so much more moves there (see docs/scale-out.md). The deployment that keeps sh's
 * table: a health check fails on both nodes for a server with {@code inhibit_on_failure} (its
 * weight goes to 0, it stays in the list) under {@code sh-fallback} or {@code mh-fallback}: exactly
 * that server's flows move, about 1/N, each where the kernel's fallback probe sends it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ScaleOutAgreementTest {
  static final int FLOWS = 4_000;
  static final int BACKENDS = 5;

  /** Client threads: a flow is one round trip through a proxy, mostly waiting. */
  static final int CLIENTS = 16;

  static final String[] NODES = {"127.0.3.1", "127.0.3.2"};
  @TempDir static Path dir;
  final List<HttpBackend> http = new ArrayList<>();
  final List<DatagramSocket> udp = new ArrayList<>();
  final List<java.net.ServerSocket> health = new ArrayList<>();
  final Process[] fairway = new Process[2];
  int mhPort;
  int shPort;
  int httpPort;
  int shFallbackPort;
  int mhFallbackPort;

  @BeforeAll
  void start() throws Exception {
    for (int b = 1; b <= BACKENDS; b++) {
      http.add(new HttpBackend("b" + b));
      udp.add(udpBackend("b" + b));
      health.add(healthPort("b" + b));
    }
    mhPort = UserspaceUdpRunTest.freeUdpPort();
    shPort = UserspaceUdpRunTest.freeUdpPort();
    shFallbackPort = UserspaceUdpRunTest.freeUdpPort();
    mhFallbackPort = UserspaceUdpRunTest.freeUdpPort();
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
                      && udpAsk(node, shFallbackPort, 0).startsWith("b")
                      && udpAsk(node, mhFallbackPort, 0).startsWith("b")
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
    http.forEach(HttpBackend::close);
    udp.forEach(DatagramSocket::close);
    for (java.net.ServerSocket h : health) {
      h.close();
    }
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
    // The health-checked deployment: every server checked (TCP_CHECK on a health port of its
    // own), inhibit_on_failure, the scheduler's fallback flag. Always all five servers.
    for (String[] v :
        new String[][] {
          {"sh", "sh-fallback", Integer.toString(shFallbackPort)},
          {"mh", "mh-fallback", Integer.toString(mhFallbackPort)}
        }) {
      s.append("virtual_server ")
          .append(vip)
          .append(' ')
          .append(v[2])
          .append(" {\n delay_loop 1\n lb_algo ")
          .append(v[0])
          .append("\n ")
          .append(v[1])
          .append("\n lb_kind NAT\n protocol UDP\n");
      for (int b = 1; b <= BACKENDS; b++) {
        s.append(" real_server 127.0.0.1 ")
            .append(udp.get(b - 1).getLocalPort())
            .append(" {\n  name b")
            .append(b)
            .append("\n  inhibit_on_failure\n  TCP_CHECK {\n   connect_port ")
            .append(health.get(b - 1).getLocalPort())
            .append("\n   connect_timeout 1\n   retry 0\n  }\n }\n");
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
          .append(http.get(b - 1).port())
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
      if (s[0].equals("shard")) {
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
        // How much Maglev moves beyond the removed server's flows depends on the servers' ports,
        // which are ephemeral here: usually about 0.5 %, but 2 % or more for 1 port set in 80
        // (MaglevRemovalSimulator, fairway-bench). So the check is exact instead: every flow,
        // before and after, goes where the director library's model of the kernel's mh sends it.
        assertThat(before.get(0))
            .as("mh: as the model picks")
            .isEqualTo(maglev(List.of(1, 2, 3, 4, 5)));
        assertThat(after.get(0))
            .as("mh: as the model picks")
            .isEqualTo(maglev(List.of(1, 2, 4, 5)));
      }
    }
    Files.writeString(
        Path.of("target", "scale-out-agreement.txt"), report + "took " + took + " ms\n");
    System.out.print(report);
  }

  /**
   * Real server {@code name}'s health port: accepts and closes (so the backlog never fills);
   * closed, the server's TCP_CHECK fails on every node.
   */
  static java.net.ServerSocket healthPort(String name) throws IOException {
    java.net.ServerSocket s = new java.net.ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread t =
        new Thread(
            () -> {
              while (!s.isClosed()) {
                try {
                  s.accept().close();
                } catch (IOException e) {
                  return; // closed
                }
              }
            },
            "scale-out-health-" + name);
    t.setDaemon(true);
    t.start();
    return s;
  }

  /**
   * The deployment that keeps sh's table: a failed check with {@code inhibit_on_failure} sets the
   * server's weight to 0 rather than removing it. The kernel's {@code ip_vs_sh_reassign} gives a
   * weight-0 server one bucket per round ({@code ++d_count >= weight}), as weight 1 does, so with
   * all weights 1 the 256 buckets do not change; {@code sh-fallback} ({@code
   * ip_vs_sh_get_fallback}) sends only the flows of the unavailable server's buckets elsewhere. The
   * kernel's mh builds its table from each server's last non-zero weight ({@code last_weight}), so
   * {@code mh-fallback} does the same there. Both nodes see the check fail, and must agree on every
   * flow before and after.
   */
  @Test
  void aFailedCheckWithInhibitMovesOnlyTheFailedServersFlowsWithShAndMhFallback() throws Exception {
    try {
      failedCheckScenario();
    } catch (Exception | AssertionError e) {
      StringBuilder logs = new StringBuilder();
      for (int n = 0; n < 2; n++) {
        Files.readAllLines(dir.resolve("node" + n + ".log")).stream()
            .filter(l -> l.contains("b3") || l.contains("DOWN") || l.contains("WARN"))
            .forEach(l -> logs.append(l).append('\n'));
      }
      throw new AssertionError(e.getMessage() + "\nthe nodes' logs:\n" + logs, e);
    }
  }

  private void failedCheckScenario() throws Exception {
    long t0 = System.nanoTime();
    List<List<String>> sh = udpFlows(shFallbackPort);
    List<List<String>> mh = udpFlows(mhFallbackPort);
    for (List<List<String>> scheme : List.of(sh, mh)) {
      assertThat(scheme.get(1)).as("node 2 chose what node 1 chose").isEqualTo(scheme.get(0));
      assertThat(scheme.get(0)).as("every flow answered").allMatch(x -> x.startsWith("b"));
      assertThat(scheme.get(0).stream().distinct()).hasSize(BACKENDS);
    }
    int probe = sh.get(0).indexOf("b3");
    int probeMh = mh.get(0).indexOf("b3");
    health.get(2).close(); // b3's check fails on both nodes
    for (int n = 0; n < 2; n++) {
      String node = NODES[n];
      // A flow that was on b3 goes elsewhere once the node's check has failed (TCP_CHECK, retry 0:
      // the first refused connection, within delay_loop 1 s of the port closing).
      try {
        await()
            .atMost(Duration.ofSeconds(30))
            .pollInterval(Duration.ofMillis(100))
            .ignoreExceptions()
            .until(
                () ->
                    !udpAsk(node, shFallbackPort, probe).equals("b3")
                        && !udpAsk(node, mhFallbackPort, probeMh).equals("b3"));
      } catch (org.awaitility.core.ConditionTimeoutException e) {
        throw new AssertionError("b3 still scheduled on " + node, e);
      }
    }
    List<List<String>> sh2 = udpFlows(shFallbackPort);
    List<List<String>> mh2 = udpFlows(mhFallbackPort);

    StringBuilder report = new StringBuilder();
    for (Object[] s : new Object[][] {{"sh-fallback", sh, sh2}, {"mh-fallback", mh, mh2}}) {
      @SuppressWarnings("unchecked")
      List<List<String>> before = (List<List<String>>) s[1];
      @SuppressWarnings("unchecked")
      List<List<String>> after = (List<List<String>>) s[2];
      assertThat(after.get(1))
          .as(s[0] + " after the failed check: node 2 chose what node 1 chose")
          .isEqualTo(after.get(0));
      assertThat(after.get(0))
          .as(s[0] + ": nothing goes to the failed server, every flow is answered")
          .doesNotContain("b3")
          .allMatch(x -> x.startsWith("b"));
      List<Integer> moved = moved(before.get(0), after.get(0));
      List<Integer> onFailed =
          IntStream.range(0, FLOWS).filter(i -> before.get(0).get(i).equals("b3")).boxed().toList();
      assertThat(moved)
          .as(s[0] + ": the same flows moved on both")
          .isEqualTo(moved(before.get(1), after.get(1)));
      assertThat(moved).as(s[0] + ": exactly the failed server's flows move").isEqualTo(onFailed);
      report.append(
          String.format(
              "%s, b3's check failed (inhibit_on_failure): %d of %d flows moved (%.1f %%), all"
                  + " of them b3's%n",
              s[0], moved.size(), FLOWS, 100.0 * moved.size() / FLOWS));
    }
    assertShTable(sh.get(0), sh2.get(0));
    assertMhShare(mh.get(0));
    Files.writeString(
        Path.of("target", "scale-out-fallback.txt"),
        report + "took " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0) + " ms\n");
    System.out.print(report);
  }

  /** The kernel's sh bucket of a client address without sh-port: {@code hash_32(addr, 8)}. */
  static int shBucket(InetAddress a) {
    byte[] b = a.getAddress();
    int addr = (b[0] & 0xff) << 24 | (b[1] & 0xff) << 16 | (b[2] & 0xff) << 8 | (b[3] & 0xff);
    return (addr * 0x61C88647) >>> 24;
  }

  /**
   * sh against the kernel's algorithm: the table the flows show is ip_vs_sh_reassign's (each bucket
   * one server, the five in turn, so b3 holds 51 or 52 of the 256 buckets); the moved flows are
   * exactly those in b3's buckets; each goes where ip_vs_sh_get_fallback's probe sequence leads
   * (bucket {@code (ihash + roffset) & 255}, {@code roffset = ihash + offset}, the first server
   * that is not b3).
   */
  static void assertShTable(List<String> before, List<String> after) throws IOException {
    String[] table = new String[256];
    for (int i = 0; i < FLOWS; i++) {
      int k = shBucket(source(i));
      assertThat(table[k] == null || table[k].equals(before.get(i)))
          .as("sh: every flow of bucket " + k + " on one server")
          .isTrue();
      table[k] = before.get(i);
    }
    int b3Buckets = 0;
    for (int k = 0; k < 256; k++) {
      assertThat(table[k]).as("sh: 4,000 client addresses reach bucket " + k).isNotNull();
      if (k >= BACKENDS) {
        assertThat(table[k])
            .as("sh: the servers take the buckets in turn")
            .isEqualTo(table[k - BACKENDS]);
      }
      if (table[k].equals("b3")) {
        b3Buckets++;
      }
    }
    assertThat(b3Buckets).as("sh: b3's buckets").isBetween(256 / BACKENDS, 256 / BACKENDS + 1);
    for (int i = 0; i < FLOWS; i++) {
      int ihash = shBucket(source(i));
      String want = table[ihash];
      if (want.equals("b3")) {
        want = null;
        for (int offset = 0; offset < 256 && want == null; offset++) {
          int roffset = (offset + ihash) % 256;
          String d = table[(roffset + ihash) & 255];
          if (!d.equals("b3")) {
            want = d;
          }
        }
      }
      assertThat(after.get(i))
          .as("sh-fallback: flow " + i + " where the kernel sends it")
          .isEqualTo(want);
    }
  }

  /**
   * mh: Maglev gives each of five equal servers 818 or 819 of the 4,093 slots, and flows land on
   * slots by SipHash, so b3's share of the flows is binomial around 1/5: within five standard
   * deviations.
   */
  static void assertMhShare(List<String> before) {
    long onB3 = before.stream().filter("b3"::equals).count();
    double p = 819.0 / 4093;
    double sd = Math.sqrt(FLOWS * p * (1 - p));
    assertThat((double) onB3)
        .as("mh: b3's flows, about 1/N")
        .isBetween(FLOWS * 818.0 / 4093 - 5 * sd, FLOWS * p + 5 * sd);
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

  /** Where the director library's model of the kernel's mh (4,093 slots) sends every flow. */
  List<String> maglev(List<Integer> backends) throws IOException {
    SchedService vs =
        new SchedService(Schedulers.create("mh", List.of(), new Schedulers.Options(4093, 0)));
    for (int b : backends) {
      vs.add(DestSpec.of("127.0.0.1", udp.get(b - 1).getLocalPort(), 1).withName("b" + b));
    }
    List<String> out = new ArrayList<>();
    for (int i = 0; i < FLOWS; i++) {
      out.add(
          Objects.requireNonNull(
                  vs.pick(io.fairway.director.sched.Flow.fromClient(source(i), 0)),
                  "every server is up")
              .name());
    }
    return out;
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
