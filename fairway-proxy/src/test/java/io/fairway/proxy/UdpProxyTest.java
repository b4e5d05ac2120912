package io.fairway.proxy;

import static io.fairway.proxy.Fixtures.dest;
import static io.fairway.proxy.Fixtures.key;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fairway.proxy.plane.ProxyTable;
import io.fairway.proxy.table.ListenerSpec;
import io.fairway.proxy.table.RequestKey;
import io.fairway.table.DestEntry;
import io.fairway.table.Protocol;
import io.fairway.table.Service;
import io.fairway.table.ServiceFlag;
import io.fairway.table.ServiceKey;
import io.fairway.table.TableException;
import io.fairway.testkit.ExternalPrograms;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * UDP virtual services on the userspace data plane, over loopback with real UDP servers: flows per
 * client address as IPVS keeps them, answers from the virtual address, the table's drain and
 * removal semantics, expiry, one-packet scheduling, and dnsmasq behind it as a real DNS service.
 */
class UdpProxyTest {
  private static final InetAddress LO = InetAddress.getLoopbackAddress();
  @AutoClose final Cleanup cleanup = new Cleanup();

  private ProxyTable table(ProxyOptions o) {
    return cleanup.track(new ProxyTable(o.toBuilder().ioThreads(2).build(), null));
  }

  private static ServiceKey udp(InetAddress a) {
    return ServiceKey.of(Protocol.UDP, a, 0);
  }

  private InetSocketAddress serve(ProxyTable t, Service s, UdpEchoServer... servers)
      throws TableException {
    t.addService(s);
    for (UdpEchoServer u : servers) {
      t.addDest(s.key(), dest(u.address(), 1));
    }
    return t.boundAddress(s.key());
  }

  private UdpEchoServer echo(String name) throws IOException {
    return cleanup.track(new UdpEchoServer(name));
  }

  /** A client socket of its own: one flow. */
  private Client client() throws IOException {
    return cleanup.track(new Client(LO));
  }

  static final class Client implements AutoCloseable {
    final DatagramSocket socket;
    InetSocketAddress lastFrom;

    Client(InetAddress bind) throws IOException {
      socket = new DatagramSocket(new InetSocketAddress(bind, 0));
      socket.setSoTimeout(2000);
    }

    /** Sends {@code text} and returns the answer ("server:text"). */
    String ask(InetSocketAddress to, String text) throws IOException {
      byte[] b = text.getBytes(StandardCharsets.US_ASCII);
      return new String(exchange(to, b), StandardCharsets.US_ASCII);
    }

    byte[] exchange(InetSocketAddress to, byte[] b) throws IOException {
      socket.send(new DatagramPacket(b, b.length, to));
      DatagramPacket p = new DatagramPacket(new byte[65535], 65535);
      socket.receive(p);
      lastFrom = (InetSocketAddress) p.getSocketAddress();
      return Arrays.copyOf(p.getData(), p.getLength());
    }

    @Override
    public void close() {
      socket.close();
    }
  }

  private static String server(String answer) {
    return answer.substring(0, answer.indexOf(':'));
  }

  @Test
  void eachClientIsAFlowThatKeepsItsServerAndHearsBackFromTheVirtualAddress() throws Exception {
    UdpEchoServer b1 = echo("b1");
    UdpEchoServer b2 = echo("b2");
    ProxyTable t = table(ProxyOptions.defaults());
    InetSocketAddress vip = serve(t, Service.of(udp(LO), "rr"), b1, b2);

    Map<String, Integer> perServer = new HashMap<>();
    for (int i = 0; i < 4; i++) {
      Client c = client();
      String first = c.ask(vip, "hello " + i);
      assertThat(first).endsWith(":hello " + i);
      assertThat(c.lastFrom).isEqualTo(vip); // the answer comes from where the client sent
      for (int j = 0; j < 3; j++) {
        assertThat(server(c.ask(vip, "again " + j))).isEqualTo(server(first));
      }
      perServer.merge(server(first), 1, Integer::sum);
    }
    assertThat(perServer).containsEntry("b1", 2).containsEntry("b2", 2);

    // As the kernel counts UDP: every flow is an inactive connection, none active.
    List<DestEntry> dests = t.list().get(0).dests();
    assertThat(dests)
        .allSatisfy(
            d -> {
              assertThat(d.activeConnections()).isZero();
              assertThat(d.inactiveConnections()).isEqualTo(2);
              assertThat(d.stats().connections()).isEqualTo(2);
              assertThat(d.stats().inBytes()).isPositive();
              assertThat(d.stats().outBytes())
                  .isGreaterThan(d.stats().inBytes()); // the echo adds its name
            });
  }

  @Test
  void drainKeepsFlowsAndRemovalEndsThem() throws Exception {
    Map<String, UdpEchoServer> byName = new HashMap<>();
    byName.put("b1", echo("b1"));
    byName.put("b2", echo("b2"));
    ProxyTable t = table(ProxyOptions.defaults());
    Service s = Service.of(udp(LO), "rr");
    InetSocketAddress vip = serve(t, s, byName.get("b1"), byName.get("b2"));
    Client c = client();
    String mine = server(c.ask(vip, "x"));
    String otherName = mine.equals("b1") ? "b2" : "b1";
    assertThat(server(client().ask(vip, "x"))).isEqualTo(otherName);

    t.setDest(s.key(), dest(byName.get(mine).address(), 0)); // drain
    assertThat(server(c.ask(vip, "still"))).isEqualTo(mine);
    for (int i = 0; i < 3; i++) {
      assertThat(server(client().ask(vip, "new"))).isEqualTo(otherName);
    }

    t.delDest(s.key(), key(byName.get(mine).address()));
    // The flow went with its server: the same client is scheduled again, to the other one.
    await()
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(() -> assertThat(server(c.ask(vip, "moved"))).isEqualTo(otherName));
  }

  @Test
  void keepConnectionsOnRemoveLeavesTheFlowRunning() throws Exception {
    UdpEchoServer b1 = echo("b1");
    UdpEchoServer b2 = echo("b2");
    ProxyTable t = table(ProxyOptions.builder().keepConnectionsOnRemove(true).build());
    Service s = Service.of(udp(LO), "rr");
    InetSocketAddress vip = serve(t, s, b1, b2);
    Client c = client();
    String mine = server(c.ask(vip, "x"));
    t.delDest(s.key(), key((mine.equals("b1") ? b1 : b2).address()));
    assertThat(server(c.ask(vip, "after removal"))).isEqualTo(mine);
    assertThat(server(client().ask(vip, "new client"))).isNotEqualTo(mine);
  }

  @Test
  void anIdleFlowExpiresAndTheClientIsScheduledAgain() throws Exception {
    UdpEchoServer b1 = echo("b1");
    UdpEchoServer b2 = echo("b2");
    Duration timeout = Duration.ofSeconds(2);
    ProxyTable t = table(ProxyOptions.builder().udpTimeout(timeout).build());
    InetSocketAddress vip = serve(t, Service.of(udp(LO), "rr"), b1, b2);
    Client c = client();
    String mine = server(c.ask(vip, "x"));
    // Traffic every tenth of the timeout (paced, not a wait for an event) keeps it alive for
    // one and a half timeouts...
    long start = System.nanoTime();
    for (int i = 0; System.nanoTime() - start < timeout.toNanos() * 3 / 2; i++) {
      Thread.sleep(timeout.toMillis() / 10);
      assertThat(server(c.ask(vip, "keep " + i))).isEqualTo(mine);
    }
    // ...silence ends it: no inactive connection left, and rr moves the client on.
    await().atMost(timeout.multipliedBy(3)).until(() -> inactive(t) == 0);
    assertThat(server(c.ask(vip, "back"))).isNotEqualTo(mine);
  }

  private static int inactive(ProxyTable t) {
    return t.list().get(0).dests().stream().mapToInt(DestEntry::inactiveConnections).sum();
  }

  @Test
  void onePacketSchedulingSpreadsEveryDatagramAndEndsTheFlowAtTheAnswer() throws Exception {
    UdpEchoServer b1 = echo("b1");
    UdpEchoServer b2 = echo("b2");
    ProxyTable t = table(ProxyOptions.defaults());
    Service ops = new Service(udp(LO), "rr", Set.of(ServiceFlag.ONE_PACKET), 0, 32, null);
    InetSocketAddress vip = serve(t, ops, b1, b2);
    Client c = client();
    List<String> seen = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      seen.add(server(c.ask(vip, "q" + i)));
    }
    // One client, every datagram scheduled on its own: rr alternates.
    for (int i = 1; i < seen.size(); i++) {
      assertThat(seen.get(i)).as("datagram %d", i).isNotEqualTo(seen.get(i - 1));
    }
    await().atMost(Duration.ofSeconds(5)).until(() -> inactive(t) == 0);
  }

  @Test
  void anUnansweredOnePacketFlowEndsAfterTheConnectTimeout() throws Exception {
    UdpEchoServer mute = cleanup.track(new UdpEchoServer("mute", LO, true));
    ProxyTable t = table(ProxyOptions.builder().connectTimeout(Duration.ofMillis(300)).build());
    Service ops = new Service(udp(LO), "rr", Set.of(ServiceFlag.ONE_PACKET), 0, 32, null);
    InetSocketAddress vip = serve(t, ops, mute);
    Client c = client();
    c.socket.send(new DatagramPacket(new byte[] {1}, 1, vip));
    c.socket.send(new DatagramPacket(new byte[] {2}, 1, vip));
    await().atMost(Duration.ofSeconds(2)).until(() -> mute.received() == 2);
    assertThat(inactive(t)).isEqualTo(2); // one flow per datagram
    await().atMost(Duration.ofSeconds(3)).until(() -> inactive(t) == 0);
  }

  @Test
  void noServerAnsweringEndsTheFlowAndTheNextDatagramIsScheduledAgain() throws Exception {
    UdpEchoServer live = echo("live");
    InetSocketAddress dead = new InetSocketAddress(LO, Fixtures.deadPort());
    ProxyTable t = table(ProxyOptions.defaults());
    Service s = Service.of(udp(LO), "rr");
    t.addService(s);
    t.addDest(s.key(), Fixtures.dest(dead, 1));
    InetSocketAddress vip = t.boundAddress(s.key());
    Client c = client();
    // The datagram goes to the dead port: ICMP port unreachable, no answer, the flow ends.
    c.socket.setSoTimeout(500);
    assertThatThrownBy(() -> c.ask(vip, "anyone?")).isInstanceOf(SocketTimeoutException.class);
    await().atMost(Duration.ofSeconds(5)).until(() -> inactive(t) == 0);
    // Drain the dead server and add a live one: a flow that was still open would stay on the
    // drained server; the ended one lets the retry be scheduled afresh.
    t.setDest(s.key(), Fixtures.dest(dead, 0));
    t.addDest(s.key(), dest(live.address(), 1));
    c.socket.setSoTimeout(2000);
    assertThat(server(c.ask(vip, "retry"))).isEqualTo("live");
  }

  @Test
  void largeAndEmptyDatagramsPassUnchanged() throws Exception {
    UdpEchoServer b1 = echo("b1");
    ProxyTable t = table(ProxyOptions.defaults());
    InetSocketAddress vip = serve(t, Service.of(udp(LO), "rr"), b1);
    Client c = client();
    for (int size : new int[] {1, 1472, 9000, 60000}) {
      byte[] payload = new byte[size];
      for (int i = 0; i < size; i++) {
        payload[i] = (byte) (i * 31 + size);
      }
      byte[] answer;
      try {
        answer = c.exchange(vip, payload);
      } catch (SocketTimeoutException e) {
        throw new AssertionError("no answer to a datagram of " + size + " bytes", e);
      }
      assertThat(answer.length).as("size %d", size).isEqualTo(size + 3);
      assertThat(Arrays.copyOfRange(answer, 3, answer.length)).isEqualTo(payload);
    }
  }

  @Test
  void anEmptyDatagramReachesTheServer() throws Exception {
    UdpEchoServer b1 = echo("b1");
    ProxyTable t = table(ProxyOptions.defaults());
    InetSocketAddress vip = serve(t, Service.of(udp(LO), "rr"), b1);
    Client c = client();
    // (Netty skips empty writes; the relay sends them itself.) The echo answers "b1:".
    assertThat(c.exchange(vip, new byte[0])).isEqualTo("b1:".getBytes(StandardCharsets.US_ASCII));
    assertThat(c.exchange(vip, new byte[0])).isEqualTo("b1:".getBytes(StandardCharsets.US_ASCII));
    assertThat(b1.received()).isEqualTo(2);
  }

  @Test
  void ipv6VirtualAddress() throws Exception {
    InetAddress v6 = InetAddress.getByName("::1");
    UdpEchoServer b1 = cleanup.track(new UdpEchoServer("b1", v6, false));
    ProxyTable t = table(ProxyOptions.defaults());
    InetSocketAddress vip = serve(t, Service.of(udp(v6), "wlc"), b1);
    Client c = cleanup.track(new Client(v6));
    assertThat(c.ask(vip, "six")).isEqualTo("b1:six");
    assertThat(c.lastFrom).isEqualTo(vip);
  }

  @Test
  void overflowGoesToTheSorryServerWhenEveryServerIsDrained() throws Exception {
    UdpEchoServer b1 = echo("b1");
    UdpEchoServer sorry = echo("sorry");
    ProxyTable t =
        cleanup.track(
            new ProxyTable(
                ProxyOptions.builder().ioThreads(1).build(),
                k -> ListenerSpec.tcp().withSorryServer(sorry.address())));
    Service s = Service.of(udp(LO), "rr");
    InetSocketAddress vip = serve(t, s, b1);
    assertThat(server(client().ask(vip, "x"))).isEqualTo("b1");
    t.setDest(s.key(), dest(b1.address(), 0));
    assertThat(server(client().ask(vip, "x"))).isEqualTo("sorry");
    t.setDest(s.key(), dest(b1.address(), 1));
    assertThat(server(client().ask(vip, "x"))).isEqualTo("b1");
  }

  @Test
  void flowsBeyondTheLimitAreDroppedUntilOneEnds() throws Exception {
    UdpEchoServer b1 = echo("b1");
    ProxyTable t =
        table(ProxyOptions.builder().maxUdpFlows(2).udpTimeout(Duration.ofMillis(600)).build());
    InetSocketAddress vip = serve(t, Service.of(udp(LO), "rr"), b1);
    Client a = client();
    Client b = client();
    Client third = client();
    a.ask(vip, "a");
    b.ask(vip, "b");
    third.socket.setSoTimeout(300);
    assertThatThrownBy(() -> third.ask(vip, "c")).isInstanceOf(SocketTimeoutException.class);
    assertThat(a.ask(vip, "a again")).isEqualTo("b1:a again"); // existing flows are unaffected
    await()
        .atMost(Duration.ofSeconds(5))
        .pollInterval(Duration.ofMillis(200))
        .ignoreExceptions()
        .untilAsserted(() -> assertThat(third.ask(vip, "c")).isEqualTo("b1:c"));
  }

  @Test
  void aPortInUseAndHttpOverUdpAreRefused() throws Exception {
    try (DatagramSocket taken = new DatagramSocket(0, LO)) {
      ProxyTable t = table(ProxyOptions.defaults());
      ServiceKey k = ServiceKey.of(Protocol.UDP, LO, taken.getLocalPort());
      assertThatThrownBy(() -> t.addService(Service.of(k, "rr")))
          .isInstanceOf(TableException.class)
          .hasMessageContaining("address already in use");
      assertThat(t.list()).isEmpty();
    }
    ProxyTable http =
        cleanup.track(
            new ProxyTable(ProxyOptions.defaults(), k -> ListenerSpec.http(RequestKey.CLIENT)));
    assertThatThrownBy(() -> http.addService(Service.of(udp(LO), "rr")))
        .isInstanceOf(TableException.class)
        .hasMessageContaining("lb_kind HTTP needs protocol TCP");
  }

  @Test
  void closingTheTableClosesEveryFlowSocket() throws Exception {
    UdpEchoServer b1 = echo("b1");
    long before = openFds();
    ProxyTable t = new ProxyTable(ProxyOptions.builder().ioThreads(1).build(), null);
    InetSocketAddress vip = serve(t, Service.of(udp(LO), "rr"), b1);
    for (int i = 0; i < 20; i++) {
      try (Client c = new Client(LO)) {
        c.ask(vip, "x");
      }
    }
    assertThat(openFds()).isGreaterThanOrEqualTo(before + 20);
    t.close();
    await()
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(() -> assertThat(openFds()).isLessThanOrEqualTo(before + 2));
  }

  private static long openFds() throws IOException {
    try (var s = Files.list(Path.of("/proc/self/fd"))) {
      return s.count();
    }
  }

  /** dnsmasq behind the relay: a real DNS service, two servers answering differently. */
  @Test
  void dnsmasqBehindTheRelayAnswersQueries(@TempDir Path dir) throws Exception {
    ExternalPrograms.require("dnsmasq", "/usr/sbin/dnsmasq");
    InetSocketAddress d1 = startDnsmasq(dir, "d1", "10.9.0.1");
    InetSocketAddress d2 = startDnsmasq(dir, "d2", "10.9.0.2");
    ProxyTable t = table(ProxyOptions.defaults());
    Service s = Service.of(udp(LO), "rr");
    t.addService(s);
    t.addDest(s.key(), Fixtures.dest(d1, 1));
    t.addDest(s.key(), Fixtures.dest(d2, 1));
    InetSocketAddress vip = t.boundAddress(s.key());
    Set<String> answers = new HashSet<>();
    for (int i = 0; i < 4; i++) {
      Client c = client();
      int id = 0x1200 + i;
      byte[] reply = c.exchange(vip, query(id, "www.fairway.test"));
      assertThat(ByteBuffer.wrap(reply).getShort(0) & 0xffff).isEqualTo(id);
      assertThat(reply[3] & 0x0f).as("RCODE").isZero();
      byte[] ip = Arrays.copyOfRange(reply, reply.length - 4, reply.length);
      answers.add(InetAddress.getByAddress(ip).getHostAddress());
    }
    assertThat(answers).containsExactlyInAnyOrder("10.9.0.1", "10.9.0.2");
  }

  /**
   * Starts dnsmasq on a free port and waits until it answers; another free port if it exits at once
   * (the port was taken between the check and its bind).
   */
  private InetSocketAddress startDnsmasq(Path dir, String name, String answer) throws Exception {
    for (int attempt = 0; ; attempt++) {
      // dnsmasq binds TCP and UDP: a UDP port from the ephemeral range could have its TCP twin
      // taken by any outgoing connection (it was, three times in a row, beside the daemon suite).
      int port = io.fairway.testkit.FreePorts.loopback();
      Path log = dir.resolve(name + "-" + attempt + ".log");
      Process p =
          new ProcessBuilder(
                  "/usr/sbin/dnsmasq",
                  "--no-daemon",
                  "--port=" + port,
                  "--listen-address=127.0.0.1",
                  "--bind-interfaces",
                  "--no-resolv",
                  "--no-hosts",
                  "--conf-file=/dev/null",
                  "--user=" + System.getProperty("user.name"),
                  "--address=/fairway.test/" + answer)
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
      cleanup.track(
          () -> {
            p.destroy();
            p.waitFor(5, TimeUnit.SECONDS);
          });
      InetSocketAddress a = new InetSocketAddress(LO, port);
      try (Client c = new Client(LO)) {
        c.socket.setSoTimeout(200);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline && p.isAlive()) {
          try {
            if (c.exchange(a, query(1, "x.fairway.test")).length > 12) {
              return a;
            }
          } catch (SocketTimeoutException e) {
            // not up yet
          }
        }
      }
      if (p.isAlive() || attempt == 2) {
        throw new AssertionError(
            "dnsmasq on port " + port + " did not answer: " + Files.readString(log));
      }
    }
  }

  /** A DNS query for an A record, recursion desired. */
  static byte[] query(int id, String name) {
    ByteBuffer b = ByteBuffer.allocate(512);
    b.putShort((short) id)
        .putShort((short) 0x0100)
        .putShort((short) 1)
        .putShort((short) 0)
        .putShort((short) 0)
        .putShort((short) 0);
    for (String label : name.split("\\.")) {
      b.put((byte) label.length()).put(label.getBytes(StandardCharsets.US_ASCII));
    }
    b.put((byte) 0).putShort((short) 1).putShort((short) 1);
    return Arrays.copyOf(b.array(), b.position());
  }
}
