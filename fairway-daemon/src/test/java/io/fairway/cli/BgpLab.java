package io.fairway.cli;

import static org.awaitility.Awaitility.await;

import io.fairway.testkit.ExternalPrograms;
import io.fairway.testkit.FairwayProcess;
import io.fairway.testkit.ThreadNetns;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The BGP tests' network, all in namespaces of its own: a router running BIRD 2 with one eBGP
 * session per node and {@code merge paths} (ECMP) into its kernel, the real servers on the router's
 * loopback (10.97.0.N:8080, shared by every node), {@link #NODES} nodes each holding the virtual
 * address 192.0.2.10 on {@code lo} and running a routing daemon ({@link Speaker}) plus {@code
 * fairway run --userspace}, and a client behind the router whose requests the test sends from a
 * thread that entered its namespace.
 *
 * <pre>
 *   client 10.99.0.2 --- 10.99.0.1 router 10.98.N.1 --- 10.98.N.2 node N (192.0.2.10 on lo)
 *                        10.97.0.1-3 real servers (lo)
 * </pre>
 *
 * <p>IPv6 alongside: the client 2001:db8:99::2, the router 2001:db8:99::1 and 2001:db8:98:N::1 with
 * the real servers' twins 2001:db8:97::1-3, node N 2001:db8:98:N::2 with 2001:db8::10 on {@code
 * lo}, a second virtual server on it, and on the BIRD nodes an IPv6 kernel protocol on table 100
 * and an IPv6 BGP session to the router.
 */
final class BgpLab implements AutoCloseable {
  static final int NODES = 3;
  static final String VIP = "192.0.2.10";

  /** The IPv6 virtual address, announced over BGP sessions of its own (BIRD nodes only). */
  static final String VIP6 = "2001:db8::10";

  static final int TABLE = 100;
  static final int ADMIN_PORT = 9107;

  /** Which routing daemon a node runs to export table 100 over BGP. */
  enum Speaker {
    BIRD,
    FRR
  }

  final Path dir;
  final String router;
  final String client;
  final List<String> nodes = new ArrayList<>();
  final List<FairwayProcess> fairways = new ArrayList<>();
  private final List<Process> daemons = new ArrayList<>();
  private final List<String> logs = new ArrayList<>();
  private final String tag;
  private final String ip;

  /** The router's BIRD, until {@link #routerToFrr} replaces it. */
  // Started by start() right after the constructor, before any use.
  @SuppressWarnings("NullAway.Init")
  private Process routerBird;

  /** Whether the router runs FRR ({@link #routerToFrr}) rather than BIRD. */
  private boolean routerFrr;

  private BgpLab(Path dir) {
    this.dir = dir;
    this.ip = ExternalPrograms.require("ip", "/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip").toString();
    this.tag = Integer.toHexString(ThreadLocalRandom.current().nextInt(0x1000, 0xffff));
    this.router = "fwb" + tag + "r";
    this.client = "fwb" + tag + "c";
    for (int i = 1; i <= NODES; i++) {
      nodes.add("fwb" + tag + "n" + i);
    }
  }

  /** Root, iproute2, python3, curl and bird are needed; under CI=true their absence fails. */
  static void requirePrograms() {
    ExternalPrograms.requireThat(
        "root".equals(System.getProperty("user.name")), () -> "network namespaces need root");
    ExternalPrograms.require("bird", "/usr/sbin/bird");
    ExternalPrograms.require("birdc", "/usr/sbin/birdc");
    ExternalPrograms.require("python3", "/usr/bin/python3");
    ExternalPrograms.require("curl", "/usr/bin/curl");
  }

  /**
   * Builds the network, starts the router's BIRD, the real servers and each node's speaker ({@code
   * speakers.get(i)} on node i+1).
   */
  static BgpLab start(Path dir, List<Speaker> speakers) throws Exception {
    BgpLab lab = new BgpLab(dir);
    try {
      lab.network();
      lab.routerBird();
      lab.realServers();
      for (int i = 1; i <= NODES; i++) {
        if (speakers.get(i - 1) == Speaker.BIRD) {
          lab.nodeBird(i);
        } else {
          lab.nodeFrr(i);
        }
      }
      return lab;
    } catch (Exception | Error e) {
      lab.close();
      throw e;
    }
  }

  private void network() throws IOException {
    for (String ns : all()) {
      sh(ip, "netns", "add", ns);
      sh(ip, "-n", ns, "link", "set", "lo", "up");
    }
    sh(ip, "netns", "exec", router, "sysctl", "-q", "-w", "net.ipv4.ip_forward=1");
    // Hash on ports too, so the client's connections spread over the next hops.
    sh(ip, "netns", "exec", router, "sysctl", "-q", "-w", "net.ipv4.fib_multipath_hash_policy=1");
    sh(ip, "netns", "exec", router, "sysctl", "-q", "-w", "net.ipv6.conf.all.forwarding=1");
    sh(ip, "netns", "exec", router, "sysctl", "-q", "-w", "net.ipv6.fib_multipath_hash_policy=1");
    for (int i = 1; i <= 3; i++) {
      sh(ip, "-n", router, "addr", "add", "10.97.0." + i + "/32", "dev", "lo");
      sh(ip, "-n", router, "-6", "addr", "add", "2001:db8:97::" + i + "/128", "dev", "lo", "nodad");
    }
    link(router, "r" + "c", client, "10.99.0.1", "10.99.0.2");
    link6(router, "r" + "c", client, "2001:db8:99::1", "2001:db8:99::2");
    sh(ip, "-n", client, "route", "add", "default", "via", "10.99.0.1");
    sh(ip, "-n", client, "-6", "route", "add", "default", "via", "2001:db8:99::1");
    for (int i = 1; i <= NODES; i++) {
      String n = nodes.get(i - 1);
      link(router, "r" + i, n, "10.98." + i + ".1", "10.98." + i + ".2");
      sh(ip, "-n", n, "route", "add", "default", "via", "10.98." + i + ".1");
      link6(router, "r" + i, n, "2001:db8:98:" + i + "::1", "2001:db8:98:" + i + "::2");
      sh(ip, "-n", n, "-6", "route", "add", "default", "via", "2001:db8:98:" + i + "::1");
      // An address: IPv6 binds only to addresses an interface holds (a local route is not one).
      sh(ip, "-n", n, "-6", "addr", "add", VIP6 + "/128", "dev", "lo", "nodad");
      // A local route rather than an address on lo: FRR would prefer the connected route an
      // address makes over table 100's and announce nothing (BIRD does not mind either way).
      sh(ip, "-n", n, "route", "add", "local", VIP + "/32", "dev", "lo", "table", "local");
    }
  }

  /** A veth pair: {@code fwbTAGsuffix} in {@code a}, {@code eth0} in {@code b}, /24 addresses. */
  private void link(String a, String suffix, String b, String addrA, String addrB)
      throws IOException {
    String name = "fwb" + tag + suffix;
    sh(ip, "link", "add", name, "netns", a, "type", "veth", "peer", "name", "eth0", "netns", b);
    sh(ip, "-n", a, "addr", "add", addrA + "/24", "dev", name);
    sh(ip, "-n", b, "addr", "add", addrB + "/24", "dev", "eth0");
    sh(ip, "-n", a, "link", "set", name, "up");
    sh(ip, "-n", b, "link", "set", "eth0", "up");
  }

  /** IPv6 /64 addresses on the veth pair {@link #link} made, without duplicate detection's wait. */
  private void link6(String a, String suffix, String b, String addrA, String addrB)
      throws IOException {
    sh(ip, "-n", a, "-6", "addr", "add", addrA + "/64", "dev", "fwb" + tag + suffix, "nodad");
    sh(ip, "-n", b, "-6", "addr", "add", addrB + "/64", "dev", "eth0", "nodad");
  }

  private void routerBird() throws Exception {
    StringBuilder c = new StringBuilder();
    c.append("router id 10.99.0.1;\n")
        .append("protocol device { scan time 1; }\n")
        .append("protocol kernel { merge paths on; ipv4 { import none; export all; }; }\n")
        .append("protocol kernel { merge paths on; ipv6 { import none; export all; }; }\n");
    for (int i = 1; i <= NODES; i++) {
      c.append("protocol bgp node")
          .append(i)
          .append(" { local 10.98.")
          .append(i)
          .append(".1 as 65000; neighbor 10.98.")
          .append(i)
          .append(".2 as ")
          .append(65100 + i)
          .append("; ")
          .append(BGP_TIMERS)
          .append(" ipv4 { import all; export none; }; }\n");
      c.append("protocol bgp node")
          .append(i)
          .append("v6 { local 2001:db8:98:")
          .append(i)
          .append("::1 as 65000; neighbor 2001:db8:98:")
          .append(i)
          .append("::2 as ")
          .append(65100 + i)
          .append("; ")
          .append(BGP_TIMERS)
          .append(" ipv6 { import all; export none; }; }\n");
    }
    routerBird = bird(router, c.toString());
  }

  /** The router side as shipped: the lab's addresses and ASes are the file's. */
  static final Path FRR_ROUTER_CONF = Path.of("..", "examples", "bgp", "frr-router.conf");

  /**
   * Replaces the router's BIRD by FRR (zebra and bgpd) running {@link #FRR_ROUTER_CONF} unchanged.
   * BIRD removes its routes as it exits; the nodes' sessions then connect to bgpd.
   */
  void routerToFrr() throws Exception {
    routerBird.destroy();
    if (!routerBird.waitFor(30, TimeUnit.SECONDS)) {
      throw new AssertionError("the router's bird did not exit on SIGTERM");
    }
    frr(router, Files.readString(FRR_ROUTER_CONF));
    routerFrr = true;
  }

  /** The router's routing daemon's view, for failure messages. */
  String routerState() {
    if (!routerFrr) {
      return birdc(router, "protocols") + birdc(router, "route", "all");
    }
    try {
      return sh(
          "vtysh",
          "-N",
          router,
          "--vty_socket",
          dir.resolve(router + "-frr").toString(),
          "-c",
          "show bgp summary",
          "-c",
          "show ip bgp");
    } catch (IOException e) {
      return "vtysh: " + e.getMessage();
    }
  }

  private static final String BGP_TIMERS =
      "hold time 6; keepalive time 2; connect retry time 2; connect delay time 1;"
          + " error wait time 1, 4;";

  /** The node side as examples/bgp/bird-node.conf has it. */
  private void nodeBird(int i) throws Exception {
    String conf =
        "router id 10.98."
            + i
            + ".2;\n"
            + "protocol device { scan time 1; }\n"
            + "protocol kernel { scan time 1; learn; kernel table "
            + TABLE
            + "; ipv4 { import where krt_source = 250; export none; }; }\n"
            // Not "protocol bgp router": router is a keyword, and BIRD would exit on the syntax
            // error (why the first runs saw no next hops at the router).
            + "protocol bgp uplink { local 10.98."
            + i
            + ".2 as "
            + (65100 + i)
            + "; neighbor 10.98."
            + i
            + ".1 as 65000; "
            + BGP_TIMERS
            + " ipv4 { import none; export all; next hop self; }; }\n"
            // IPv6: the table's IPv6 routes, over a session between IPv6 addresses (an IPv6
            // next hop for "next hop self").
            + "protocol kernel { scan time 1; learn; kernel table "
            + TABLE
            + "; ipv6 { import where krt_source = 250; export none; }; }\n"
            + "protocol bgp uplink6 { local 2001:db8:98:"
            + i
            + "::2 as "
            + (65100 + i)
            + "; neighbor 2001:db8:98:"
            + i
            + "::1 as 65000; "
            + BGP_TIMERS
            + " ipv6 { import none; export all; next hop self; }; }\n";
    bird(nodes.get(i - 1), conf);
  }

  /**
   * Starts BIRD in {@code ns} and waits for its control socket, failing with its log if it exits
   * first (a configuration error ends it at once).
   */
  private Process bird(String ns, String conf) throws Exception {
    Path file = dir.resolve(ns + "-bird.conf");
    Files.writeString(file, conf);
    Path socket = dir.resolve(ns + "-bird.sock");
    Process p =
        daemon(
            ns + "-bird",
            ip,
            "netns",
            "exec",
            ns,
            "bird",
            "-f",
            "-c",
            file.toString(),
            "-s",
            dir.resolve(ns + "-bird.sock").toString(),
            "-P",
            dir.resolve(ns + "-bird.pid").toString());
    Path log = dir.resolve(ns + "-bird.log");
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(50))
        .until(
            () -> {
              if (!p.isAlive()) {
                throw new AssertionError(
                    "bird in " + ns + " exited " + p.exitValue() + ": " + Files.readString(log));
              }
              return Files.exists(socket);
            });
    return p;
  }

  /** {@code birdc show ARGS} against the BIRD in {@code ns} (for failure messages). */
  String birdc(String ns, String... args) {
    List<String> cmd =
        new ArrayList<>(List.of("birdc", "-s", dir.resolve(ns + "-bird.sock").toString(), "show"));
    cmd.addAll(List.of(args));
    try {
      return sh(cmd.toArray(String[]::new));
    } catch (IOException e) {
      return "birdc: " + e.getMessage();
    }
  }

  /**
   * zebra and bgpd in the node's namespace, with pid files, vty sockets and configs of their own
   * ({@code -N}), as examples/bgp/frr-node.conf has it.
   */
  private void nodeFrr(int i) throws Exception {
    String ns = nodes.get(i - 1);
    String conf =
        "frr defaults traditional\n"
            + "hostname "
            + ns
            + "\n"
            + "ip import-table "
            + TABLE
            + "\n"
            // Redistributed routes have origin incomplete, BIRD's learned ones IGP; the router
            // (BIRD or FRR) merges only equal paths (origin included) into its ECMP route.
            + "route-map FAIRWAY permit 10\n"
            + " set origin igp\n"
            + "router bgp "
            + (65100 + i)
            + "\n"
            + " bgp router-id 10.98."
            + i
            + ".2\n"
            + " no bgp ebgp-requires-policy\n"
            + " timers bgp 2 6\n"
            + " neighbor 10.98."
            + i
            + ".1 remote-as 65000\n"
            + " neighbor 10.98."
            + i
            + ".1 timers connect 2\n"
            + " address-family ipv4 unicast\n"
            + "  redistribute table "
            + TABLE
            + " route-map FAIRWAY\n"
            + " exit-address-family\n";
    frr(ns, conf);
  }

  /**
   * zebra and bgpd in {@code ns} with configuration {@code conf}, in a run directory of their own.
   */
  private void frr(String ns, String conf) throws Exception {
    Path run = dir.resolve(ns + "-frr");
    // zebra and bgpd drop to user frr, which must reach run/ through JUnit's 0700 temp dir
    // (zebra exited on "Can't create pid lock file ... Permission denied" otherwise).
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx--x--x"));
    Files.createDirectories(run);
    sh("chown", "frr:frr", run.toString());
    Path file = run.resolve("frr.conf");
    Files.writeString(file, conf);
    sh("chown", "frr:frr", file.toString());
    String zsock = run.resolve("zserv.api").toString();
    Process zebra =
        daemon(
            ns + "-zebra",
            ip,
            "netns",
            "exec",
            ns,
            "/usr/lib/frr/zebra",
            "-N",
            ns,
            "-i",
            run.resolve("zebra.pid").toString(),
            "-z",
            zsock,
            "--vty_socket",
            run.toString(),
            "-A",
            "127.0.0.1",
            "-f",
            file.toString());
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(100))
        .until(
            () -> {
              if (!zebra.isAlive()) {
                throw new AssertionError(
                    "zebra in "
                        + ns
                        + " exited: "
                        + Files.readString(dir.resolve(ns + "-zebra.log")));
              }
              return Files.exists(Path.of(zsock));
            });
    daemon(
        ns + "-bgpd",
        ip,
        "netns",
        "exec",
        ns,
        "/usr/lib/frr/bgpd",
        "-N",
        ns,
        "-i",
        run.resolve("bgpd.pid").toString(),
        "-z",
        zsock,
        "--vty_socket",
        run.toString(),
        "-A",
        "127.0.0.1",
        "-p",
        "179",
        "-f",
        file.toString());
  }

  private void realServers() throws Exception {
    Path script = dir.resolve("realservers.py");
    try (InputStream in = BgpLab.class.getResourceAsStream("/bgp/realservers.py")) {
      Files.write(script, in.readAllBytes());
    }
    Process p =
        daemon(
            "realservers",
            ip,
            "netns",
            "exec",
            router,
            "python3",
            script.toString(),
            "8080",
            "10.97.0.1",
            "10.97.0.2",
            "10.97.0.3",
            "2001:db8:97::1",
            "2001:db8:97::2",
            "2001:db8:97::3");
    Path log = dir.resolve("realservers.log");
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(50))
        .until(
            () -> {
              if (!p.isAlive()) {
                throw new AssertionError("real servers exited: " + Files.readString(log));
              }
              return Files.readString(log).contains("ready");
            });
  }

  private Process daemon(String name, String... cmd) throws IOException {
    Path log = dir.resolve(name + ".log");
    logs.add(name);
    Process p =
        new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    daemons.add(p);
    return p;
  }

  /**
   * The node's keepalived.conf: a shard service over the three real servers on the VIP, and the
   * same on the IPv6 VIP over their IPv6 twins (a virtual server's real servers are of its family).
   */
  static String fairwayConfig(String extraGlobal) {
    StringBuilder s = new StringBuilder();
    s.append("global_defs {\n announce_table ")
        .append(TABLE)
        .append("\n announce_withdraw_delay 2\n")
        .append(extraGlobal)
        .append("}\n");
    for (String vip : List.of(VIP, VIP6)) {
      s.append("virtual_server ")
          .append(vip)
          .append(" 80 {\n delay_loop 1\n lb_algo shard\n lb_kind HTTP\n protocol TCP\n")
          .append(" shard {\n  by URL\n }\n announce\n");
      for (int i = 1; i <= 3; i++) {
        s.append(" real_server ")
            .append(vip.equals(VIP) ? "10.97.0." : "2001:db8:97::")
            .append(i)
            .append(" 8080 {\n  name rs")
            .append(i)
            .append("\n  TCP_CHECK {\n   connect_timeout 1\n   retry 0\n  }\n }\n");
      }
      s.append("}\n");
    }
    return s.toString();
  }

  /** Starts {@code fairway run --userspace} on node {@code i} (1-based). */
  FairwayProcess startFairway(int i) throws Exception {
    String ns = nodes.get(i - 1);
    Path conf = dir.resolve(ns + ".conf");
    Files.writeString(conf, fairwayConfig(""));
    Path token = token(i);
    FairwayProcess fw =
        FairwayProcess.fromTestClasspath("-Xmx128m", "-XX:TieredStopAtLevel=1")
            .prefix(ip, "netns", "exec", ns)
            .log(dir.resolve(ns + "-fairway.log"))
            .start(
                "run",
                "--userspace",
                "-f",
                conf.toString(),
                "--admin",
                "127.0.0.1:" + ADMIN_PORT,
                "--admin-token-file",
                token.toString(),
                "--grace-period",
                "10",
                "--drift-interval",
                "1");
    fairways.add(fw);
    return fw;
  }

  Path token(int i) throws IOException {
    Path token = dir.resolve(nodes.get(i - 1) + ".token");
    if (!Files.exists(token)) {
      Files.writeString(token, "t" + tag + "x" + i + "\n");
      Files.setPosixFilePermissions(token, PosixFilePermissions.fromString("rw-------"));
    }
    return token;
  }

  /** {@code fairway ARGS --admin ... --admin-token-file ...} against node i; its exit code. */
  // FairwayProcess (the test kit's) waits for its process in close(): an interrupt there ends the
  // test, which is what it should do.
  @SuppressWarnings("try")
  int fairwayCli(int i, String... args) throws Exception {
    List<String> a = new ArrayList<>(List.of(args));
    a.addAll(
        List.of("--admin", "127.0.0.1:" + ADMIN_PORT, "--admin-token-file", token(i).toString()));
    try (FairwayProcess p =
        FairwayProcess.fromTestClasspath("-Xmx64m", "-XX:TieredStopAtLevel=1")
            .prefix(ip, "netns", "exec", nodes.get(i - 1))
            .log(dir.resolve(nodes.get(i - 1) + "-cli.log"))
            .start(a.toArray(String[]::new))) {
      return p.awaitExit(Duration.ofSeconds(90));
    }
  }

  /** {@code curl http://127.0.0.1:9107PATH} inside node i. */
  String admin(int i, String path) throws IOException {
    return sh(
        ip,
        "netns",
        "exec",
        nodes.get(i - 1),
        "curl",
        "-sS",
        "--max-time",
        "10",
        "http://127.0.0.1:" + ADMIN_PORT + path);
  }

  /** The nodes (1-based) the router's route to the VIP goes through. */
  Set<Integer> nextHops() throws IOException {
    String shown = sh(ip, "-n", router, "route", "show", VIP + "/32");
    Set<Integer> out = new TreeSet<>();
    Matcher m = Pattern.compile("via 10\\.98\\.(\\d+)\\.2").matcher(shown);
    while (m.find()) {
      out.add(Integer.parseInt(m.group(1)));
    }
    return out;
  }

  /** The nodes (1-based) the router's route to the IPv6 VIP goes through. */
  Set<Integer> nextHops6() throws IOException {
    String shown = sh(ip, "-n", router, "-6", "route", "show", VIP6 + "/128");
    Set<Integer> out = new TreeSet<>();
    Matcher m = Pattern.compile("via 2001:db8:98:(\\d+)::2").matcher(shown);
    while (m.find()) {
      out.add(Integer.parseInt(m.group(1)));
    }
    return out;
  }

  /** Whether node i holds Fairway's route in table 100. */
  boolean announces(int i) throws IOException {
    return sh(ip, "-n", nodes.get(i - 1), "route", "show", "table", "" + TABLE, "proto", "250")
        .contains(VIP);
  }

  String ipIn(int i, String... args) throws IOException {
    List<String> cmd = new ArrayList<>(List.of(ip, "-n", nodes.get(i - 1)));
    cmd.addAll(List.of(args));
    return sh(cmd.toArray(String[]::new));
  }

  /** Threads whose sockets live in the client's namespace. */
  ExecutorService clientThreads(int n) {
    return Executors.newFixedThreadPool(
        n,
        r ->
            new Thread(
                () -> {
                  enter(client);
                  r.run();
                },
                "bgp-client"));
  }

  static void enter(String ns) {
    ThreadNetns.enter(ns);
  }

  /**
   * One answer through the router: which real server and which node, or why it failed.
   *
   * @param node the node (1-based) that proxied it, 0 when it failed
   */
  record Reply(
      String key, int status, @Nullable String realServer, int node, @Nullable String error) {
    boolean ok() {
      return status == 200 && error == null;
    }
  }

  /** GET /k/KEY to the VIP on a new connection; on a client thread. */
  static Reply get(String key) {
    return get(VIP, key);
  }

  /** GET /k/KEY to {@code vip} on a new connection; on a client thread. */
  static Reply get(String vip, String key) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(vip, 80), 10_000);
      // Long: a node's first answers take seconds while three JVMs warm up on a loaded machine
      // (the first run's first 7 requests timed out at 5 s); the tests count failures, not time.
      s.setSoTimeout(30_000);
      OutputStream out = s.getOutputStream();
      out.write(
          ("GET /k/" + key + " HTTP/1.1\r\nHost: vip\r\nConnection: close\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      String text = new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
      Matcher status = Pattern.compile("^HTTP/1\\.[01] (\\d{3})").matcher(text);
      if (!status.find()) {
        return new Reply(key, -1, null, 0, "no status line: " + text);
      }
      int code = Integer.parseInt(status.group(1));
      // The node's address towards the real servers: 10.98.N.2, or 2001:db8:98:N::2 over IPv6.
      Matcher body =
          Pattern.compile("(rs\\d) (?:10\\.98\\.(\\d+)\\.2|2001:db8:98:(\\d+)::2)\\n?$")
              .matcher(text);
      if (code != 200 || !body.find()) {
        return new Reply(key, code, null, 0, "answer: " + text.lines().findFirst().orElse(""));
      }
      String node = body.group(2) != null ? body.group(2) : body.group(3);
      return new Reply(key, code, body.group(1), Integer.parseInt(node), null);
    } catch (IOException e) {
      return new Reply(key, -1, null, 0, e.toString());
    }
  }

  private List<String> all() {
    List<String> out = new ArrayList<>(List.of(router, client));
    out.addAll(nodes);
    return out;
  }

  static String sh(String... cmd) throws IOException {
    return Netns.sh(cmd);
  }

  /** Every process and namespace goes; the daemons' logs are printed. */
  @Override
  public void close() throws IOException {
    try {
      closeAll();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // the caller's to see
    }
  }

  private void closeAll() throws IOException, InterruptedException {
    for (FairwayProcess fw : fairways) {
      fw.close();
    }
    for (Process p : daemons) {
      p.destroy();
    }
    for (Process p : daemons) {
      if (!p.waitFor(10, TimeUnit.SECONDS)) {
        p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    }
    for (String ns : all()) {
      try {
        for (String pid : sh(ip, "netns", "pids", ns).split("\\s+")) {
          if (!pid.isBlank()) {
            new ProcessBuilder("kill", "-9", pid.trim()).start().waitFor(10, TimeUnit.SECONDS);
          }
        }
        sh(ip, "netns", "del", ns);
      } catch (IOException e) {
        System.out.println("cleanup: " + e.getMessage());
      }
    }
    for (FairwayProcess fw : fairways) {
      System.out.println("--- " + fw.logFile() + "\n" + fw.log());
    }
    for (String name : logs) {
      Path log = dir.resolve(name + ".log");
      if (Files.exists(log)) {
        System.out.println("--- " + name + "\n" + Files.readString(log));
      }
    }
  }
}
