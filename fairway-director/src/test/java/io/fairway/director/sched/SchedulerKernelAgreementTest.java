package io.fairway.director.sched;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.testkit.ExternalPrograms;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The strongest check of kernel exactness: boots user-mode Linux, lets the real IPVS schedule
 * connections from many client addresses (sh, mh — IPv4 and IPv6, with and without -port/-fallback
 * flags —, dh on a fwmark service, and sequences for rr wrr lc wlc sed nq fo ovf with thresholds,
 * sh/mh whose servers fill up, persistent services with a /24 granularity, and services changed
 * between connections), reads /proc/net/ip_vs_conn and requires Fairway's schedulers to choose the
 * same real server for every single connection, and to refuse exactly where the kernel created no
 * connection.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SchedulerKernelAgreementTest {

  /** A change made between two connections: 'a'dd, 'e'dit or 'd'elete a real server. */
  record Change(char op, DestSpec dest) {}

  /**
   * @param steps the connections in order, with {@link Change}s between them (a step is a Flow or a
   *     Change)
   */
  record Scenario(
      String name,
      String sched,
      List<String> flags,
      String vip,
      int vport,
      int fwmark,
      List<DestSpec> adds,
      List<DestSpec> edits,
      List<?> steps,
      Persistence persistence) {
    Scenario(
        String name,
        String sched,
        List<String> flags,
        String vip,
        int vport,
        int fwmark,
        List<DestSpec> adds,
        List<DestSpec> edits,
        List<?> steps) {
      this(name, sched, flags, vip, vport, fwmark, adds, edits, steps, Persistence.NONE);
    }
  }

  private final List<Scenario> scenarios = new ArrayList<>();
  private Map<String, UmlIpvs.Conn> kernel;
  private int kernelConnCount;

  @BeforeAll
  void bootKernel(@TempDir Path dir) throws Exception {
    String reason = UmlIpvs.unavailableReason();
    ExternalPrograms.requireThat(reason == null, () -> reason);
    buildScenarios();
    StringBuilder plan = new StringBuilder();
    List<String> clients = new ArrayList<>();
    for (Scenario s : scenarios) {
      String svc = s.fwmark() > 0 ? "-f " + s.fwmark() : "-t " + hostPort(ip(s.vip()), s.vport());
      plan.append("ipvsadm -A ")
          .append(svc)
          .append(" -s ")
          .append(s.sched())
          .append(s.flags().isEmpty() ? "" : " -b " + String.join(",", s.flags()))
          .append(
              s.persistence().enabled()
                  ? " -p "
                      + s.persistence().timeoutMillis() / 1000
                      + " -M "
                      + maskText(s.persistence().ipv4Mask())
                  : "")
          .append('\n');
      for (DestSpec d : s.adds())
        plan.append("ipvsadm -a ").append(destArgs(svc, d, s.fwmark())).append('\n');
      for (DestSpec d : s.edits())
        plan.append("ipvsadm -e ").append(destArgs(svc, d, s.fwmark())).append('\n');
      for (Object step : s.steps()) {
        if (step instanceof Change c) {
          String cmd =
              switch (c.op()) {
                case 'a' -> "ipvsadm -a " + destArgs(svc, c.dest(), s.fwmark());
                case 'e' -> "ipvsadm -e " + destArgs(svc, c.dest(), s.fwmark());
                default ->
                    "ipvsadm -d " + svc + " -r " + hostPort(c.dest().address(), c.dest().port());
              };
          clients.add("! " + cmd);
          continue;
        }
        Flow f = (Flow) step;
        clients.add(
            s.fwmark()
                + " "
                + f.client().getHostAddress()
                + " "
                + f.clientPort()
                + " "
                + (s.fwmark() > 0 ? f.destination().getHostAddress() : s.vip())
                + " "
                + s.vport());
      }
    }
    // FAIRWAY_UML_KEEP=/some/dir keeps the UML run's files (plan, logs, ip_vs_conn) for a look.
    String keep = System.getenv("FAIRWAY_UML_KEEP");
    Path work = keep == null ? dir : java.nio.file.Files.createDirectories(Path.of(keep));
    List<UmlIpvs.Conn> conns = UmlIpvs.run(work, plan.toString(), clients);
    kernelConnCount = conns.size();
    kernel = UmlIpvs.byFlow(conns);
  }

  private static String destArgs(String svc, DestSpec d, int fwmark) {
    String r =
        fwmark > 0
            ? (d.address() instanceof Inet6Address
                ? "[" + d.address().getHostAddress() + "]"
                : d.address().getHostAddress())
            : hostPort(d.address(), d.port());
    return svc
        + " -r "
        + r
        + " -g -w "
        + d.weight()
        + " -x "
        + d.upperThreshold()
        + " -y "
        + d.lowerThreshold();
  }

  private static String maskText(int m) {
    return (m >>> 24) + "." + ((m >>> 16) & 255) + "." + ((m >>> 8) & 255) + "." + (m & 255);
  }

  private static String hostPort(InetAddress a, int port) {
    return (a instanceof Inet6Address ? "[" + a.getHostAddress() + "]" : a.getHostAddress())
        + ":"
        + port;
  }

  static InetAddress ip(String s) {
    return AddressFold.parse(s);
  }

  private void buildScenarios() throws Exception {
    Random rnd = new Random(20261129);
    List<DestSpec> six =
        List.of(
            DestSpec.of("10.16.1.1", 80, 1),
            DestSpec.of("10.16.1.2", 80, 3),
            DestSpec.of("10.16.1.3", 80, 0),
            DestSpec.of("10.16.1.4", 80, 2),
            DestSpec.of("10.16.1.5", 80, 1),
            DestSpec.of("10.16.1.6", 80, 4));
    scenarios.add(
        hashScenario("sh", "sh", List.of(), "10.16.0.1", six, List.of(), v4Clients(rnd, 300)));
    scenarios.add(
        hashScenario(
            "sh-port-fallback",
            "sh",
            List.of("sh-fallback", "sh-port"),
            "10.16.0.2",
            six,
            List.of(),
            v4Clients(rnd, 300)));
    scenarios.add(
        hashScenario("mh", "mh", List.of(), "10.16.0.3", six, List.of(), v4Clients(rnd, 300)));
    scenarios.add(
        hashScenario(
            "mh-port-fallback-quiesced",
            "mh",
            List.of("mh-fallback", "mh-port"),
            "10.16.0.4",
            six,
            List.of(DestSpec.of("10.16.1.6", 80, 0)),
            v4Clients(rnd, 300)));
    scenarios.add(
        hashScenario(
            "mh-big-weights",
            "mh",
            List.of(),
            "10.16.0.9",
            List.of(
                DestSpec.of("10.16.4.1", 80, 7), DestSpec.of("10.16.4.2", 80, 1000),
                DestSpec.of("10.16.4.3", 80, 333), DestSpec.of("10.16.4.4", 80, 64)),
            List.of(),
            v4Clients(rnd, 300)));
    scenarios.add(
        hashScenario(
            "sh-big-weights",
            "sh",
            List.of(),
            "10.16.0.8",
            List.of(DestSpec.of("10.16.4.1", 80, 200), DestSpec.of("10.16.4.2", 80, 100)),
            List.of(),
            v4Clients(rnd, 200)));

    List<DestSpec> v6 =
        List.of(
            DestSpec.of("fd00:16::2:1", 80, 1),
            DestSpec.of("fd00:16::2:2", 80, 2),
            DestSpec.of("fd00:16::2:3", 80, 1),
            DestSpec.of("fd00:16::2:4", 80, 3),
            DestSpec.of("fd00:16::2:5", 80, 1));
    scenarios.add(
        hashScenario("sh-v6", "sh", List.of(), "fd00:16::1", v6, List.of(), v6Clients(rnd, 200)));
    scenarios.add(
        hashScenario(
            "mh-v6-port",
            "mh",
            List.of("mh-port"),
            "fd00:16::3",
            v6,
            List.of(),
            v6Clients(rnd, 200)));

    // dh on a fwmark service: the hash key is each packet's own destination address.
    List<DestSpec> caches =
        List.of(
            new DestSpec(null, ip("10.16.2.1"), 0, 1, 0, 0),
            new DestSpec(null, ip("10.16.2.2"), 0, 1, 0, 0),
            new DestSpec(null, ip("10.16.2.3"), 0, 2, 0, 0),
            new DestSpec(null, ip("10.16.2.4"), 0, 0, 0, 0),
            new DestSpec(null, ip("10.16.2.5"), 0, 1, 0, 0));
    List<Flow> origins = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      InetAddress dst =
          InetAddress.getByAddress(
              new byte[] {10, 18, (byte) rnd.nextInt(256), (byte) rnd.nextInt(256)});
      origins.add(new Flow(ip("10.17.0.1"), 10000 + i, dst, 80));
    }
    scenarios.add(
        new Scenario("dh-fwmark", "dh", List.of(), "0.0.0.0", 80, 7, caches, List.of(), origins));

    // Stateful schedulers: one client, sequential connections, thresholds that fill up.
    List<DestSpec> pool =
        List.of(
            DestSpec.of("10.16.3.1", 80, 1).withThresholds(3, 1),
            DestSpec.of("10.16.3.2", 80, 3).withThresholds(5, 0),
            DestSpec.of("10.16.3.3", 80, 2),
            DestSpec.of("10.16.3.4", 80, 0),
            DestSpec.of("10.16.3.5", 80, 3).withThresholds(4, 2));
    String[] seq = {"rr", "wrr", "lc", "wlc", "sed", "nq", "fo", "ovf"};
    for (int i = 0; i < seq.length; i++) {
      List<Flow> flows = new ArrayList<>();
      for (int k = 0; k < 16; k++)
        flows.add(new Flow(ip("10.17.9.9"), 30000 + 100 * i + k, null, 80));
      scenarios.add(
          new Scenario(
              seq[i] + "-sequence",
              seq[i],
              List.of(),
              "10.16.0." + (20 + i),
              80,
              0,
              pool,
              List.of(),
              flows));
    }
    // Hash schedulers with thresholds: servers fill up as the clients arrive, then fallback (or
    // refusal) begins.
    List<DestSpec> small =
        List.of(
            DestSpec.of("10.16.6.1", 80, 1).withThresholds(6, 2),
            DestSpec.of("10.16.6.2", 80, 2).withThresholds(10, 0),
            DestSpec.of("10.16.6.3", 80, 1).withThresholds(4, 0),
            DestSpec.of("10.16.6.4", 80, 3));
    scenarios.add(
        hashScenario(
            "mh-fallback-thresholds",
            "mh",
            List.of("mh-fallback"),
            "10.16.0.40",
            small,
            List.of(),
            v4Clients(rnd, 80)));
    scenarios.add(
        hashScenario(
            "sh-fallback-thresholds",
            "sh",
            List.of("sh-fallback"),
            "10.16.0.41",
            small,
            List.of(),
            v4Clients(rnd, 80)));
    scenarios.add(
        hashScenario(
            "sh-thresholds", "sh", List.of(), "10.16.0.42", small, List.of(), v4Clients(rnd, 80)));

    // Persistence with /24 granularity: clients of three networks, each connecting several times,
    // interleaved.
    List<Flow> sticky = new ArrayList<>();
    for (int round = 0; round < 4; round++) {
      for (int net = 0; net < 3; net++) {
        for (int host = 1; host <= 5; host++) {
          sticky.add(
              new Flow(
                  ip("10.17." + (200 + net) + "." + (host * 7 + round)),
                  20000 + round * 100 + net * 10 + host,
                  null,
                  80));
        }
      }
    }
    scenarios.add(
        new Scenario(
            "rr-persistent-24",
            "rr",
            List.of(),
            "10.16.0.43",
            80,
            0,
            List.of(
                DestSpec.of("10.16.7.1", 80, 1),
                DestSpec.of("10.16.7.2", 80, 1),
                DestSpec.of("10.16.7.3", 80, 1)),
            List.of(),
            sticky,
            Persistence.seconds(300).withIpv4Mask(0xffffff00)));
    scenarios.add(
        new Scenario(
            "wlc-persistent",
            "wlc",
            List.of(),
            "10.16.0.44",
            80,
            0,
            List.of(
                DestSpec.of("10.16.7.1", 80, 1),
                DestSpec.of("10.16.7.2", 80, 3).withThresholds(8, 0),
                DestSpec.of("10.16.7.3", 80, 2)),
            List.of(),
            sticky,
            Persistence.seconds(300)));

    // Changes between connections: the cursors of rr/wrr, mh's table and persistence templates must
    // follow
    // removals, additions and weight changes exactly as the kernel's do.
    DestSpec d1 = DestSpec.of("10.16.8.1", 80, 4),
        d2 = DestSpec.of("10.16.8.2", 80, 3),
        d3 = DestSpec.of("10.16.8.3", 80, 2),
        d4 = DestSpec.of("10.16.8.4", 80, 5);
    String[] dyn = {"rr", "wrr", "wlc", "mh", "sh"};
    for (int i = 0; i < dyn.length; i++) {
      List<Object> steps = new ArrayList<>();
      String client = "10.17.10." + (i + 1);
      int port = 50000;
      boolean hash = dyn[i].equals("mh") || dyn[i].equals("sh");
      List<Flow> hashClients = hash ? v4Clients(rnd, 60) : List.of();
      Change[] changes = {
        new Change('d', d2),
        new Change('e', d1.withWeight(1)),
        new Change('a', d4),
        new Change('e', d3.withWeight(0)),
        new Change('a', d2.withWeight(2)),
        new Change('d', d4)
      };
      for (int round = 0; round <= changes.length; round++) {
        if (round > 0) steps.add(changes[round - 1]);
        if (hash) {
          for (Flow f : hashClients) steps.add(new Flow(f.client(), port++, null, 80));
        } else {
          for (int k = 0; k < 9; k++) steps.add(new Flow(ip(client), port++, null, 80));
        }
      }
      scenarios.add(
          new Scenario(
              dyn[i] + "-changes",
              dyn[i],
              List.of(),
              "10.16.0." + (50 + i),
              80,
              0,
              List.of(d1, d2, d3),
              List.of(),
              steps));
    }
    // Persistence across quiescing and removal: sticky clients stay on a weight-0 server, move off
    // a removed one.
    List<Object> pst = new ArrayList<>();
    int pport = 51000;
    for (int round = 0; round < 3; round++) {
      if (round == 1) pst.add(new Change('e', d1.withWeight(0)));
      if (round == 2) pst.add(new Change('d', d2));
      for (int c = 1; c <= 6; c++) pst.add(new Flow(ip("10.17.11." + c), pport++, null, 80));
    }
    scenarios.add(
        new Scenario(
            "rr-persistent-changes",
            "rr",
            List.of(),
            "10.16.0.60",
            80,
            0,
            List.of(d1, d2, d3),
            List.of(),
            pst,
            Persistence.seconds(300)));

    // wrr with a weight change in the middle of nowhere: gcd 2 steps.
    scenarios.add(
        new Scenario(
            "wrr-gcd",
            "wrr",
            List.of(),
            "10.16.0.30",
            80,
            0,
            List.of(
                DestSpec.of("10.16.5.1", 80, 4),
                DestSpec.of("10.16.5.2", 80, 6),
                DestSpec.of("10.16.5.3", 80, 2)),
            List.of(),
            sequential("10.17.9.10", 24)));
  }

  private static List<Flow> sequential(String client, int n) {
    List<Flow> flows = new ArrayList<>();
    for (int k = 0; k < n; k++) flows.add(new Flow(ip(client), 40000 + k, null, 80));
    return flows;
  }

  private static Scenario hashScenario(
      String name,
      String sched,
      List<String> flags,
      String vip,
      List<DestSpec> adds,
      List<DestSpec> edits,
      List<Flow> flows) {
    return new Scenario(name, sched, flags, vip, 80, 0, adds, edits, flows);
  }

  private static List<Flow> v4Clients(Random rnd, int n) throws Exception {
    List<Flow> flows = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      InetAddress c =
          InetAddress.getByAddress(
              new byte[] {10, 17, (byte) rnd.nextInt(256), (byte) (1 + rnd.nextInt(254))});
      flows.add(new Flow(c, 1024 + rnd.nextInt(60000), null, 80));
    }
    return flows;
  }

  private static List<Flow> v6Clients(Random rnd, int n) throws Exception {
    List<Flow> flows = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      byte[] a = new byte[16];
      rnd.nextBytes(a);
      a[0] = (byte) 0xfd;
      a[1] = 0;
      a[2] = 0;
      a[3] = 0x17;
      flows.add(new Flow(InetAddress.getByAddress(a), 1024 + rnd.nextInt(60000), null, 80));
    }
    return flows;
  }

  @Test
  void everyConnectionGoesWhereTheKernelSentIt() {
    assertThat(kernelConnCount).as("the kernel scheduled connections at all").isGreaterThan(1000);
    List<String> mismatches = new ArrayList<>();
    int compared = 0;
    int refused = 0;
    for (Scenario s : scenarios) {
      SchedService vs =
          new SchedService(
              Schedulers.create(s.sched(), s.flags()),
              s.persistence(),
              () -> 1_000_000L); // the whole run is far shorter than the persistence timeout
      for (DestSpec d : s.adds()) vs.add(d);
      for (DestSpec d : s.edits()) vs.edit(d);
      for (Object step : s.steps()) {
        if (step instanceof Change ch) {
          switch (ch.op()) {
            case 'a' -> vs.add(ch.dest());
            case 'e' -> vs.edit(ch.dest());
            default -> vs.remove(ch.dest().address(), ch.dest().port());
          }
          continue;
        }
        Flow f = (Flow) step;
        InetAddress vaddr = s.fwmark() > 0 ? f.destination() : ip(s.vip());
        Flow flow = s.fwmark() > 0 ? f : new Flow(f.client(), f.clientPort(), vaddr, s.vport());
        Connection c = vs.open(flow);
        UmlIpvs.Conn k = kernel.get(UmlIpvs.key(f.client(), f.clientPort(), vaddr, s.vport()));
        // A fwmark service's real servers have no port: the connection keeps the packet's.
        String ours =
            c == null
                ? "none"
                : s.fwmark() > 0
                    ? c.dest().address().getHostAddress()
                    : hostPort(c.dest().address(), c.dest().port());
        String theirs =
            k == null
                ? "none"
                : s.fwmark() > 0 ? k.dest().getHostAddress() : hostPort(k.dest(), k.destPort());
        if (c == null) refused++;
        compared++;
        if (!ours.equals(theirs))
          mismatches.add(s.name() + " " + f + ": fairway " + ours + ", kernel " + theirs);
      }
    }
    assertThat(mismatches)
        .as("connections where Fairway and the kernel disagree (of %d)", compared)
        .isEmpty();
    assertThat(refused)
        .as("some connections were refused (quiesced/overloaded without fallback)")
        .isPositive();
  }
}
