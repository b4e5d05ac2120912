package io.fairway.ipvs.uml;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import io.fairway.ipvs.KernelTableContractTest;
import io.fairway.ipvs.kernel.IpvsCodec;
import io.fairway.ipvs.kernel.IpvsKernelTable;
import io.fairway.netlink.GenericNetlink;
import io.fairway.netlink.MessageBuilder;
import io.fairway.netlink.Netlink;
import io.fairway.netlink.NetlinkMessage;
import io.fairway.netlink.NetlinkSocket;
import io.fairway.table.AddressFamily;
import io.fairway.table.Dest;
import io.fairway.table.ForwardingMethod;
import io.fairway.table.Protocol;
import io.fairway.table.Service;
import io.fairway.table.ServiceEntry;
import io.fairway.table.ServiceFlag;
import io.fairway.table.ServiceKey;
import io.fairway.table.TableFormat;
import io.fairway.table.TableOp;
import io.fairway.table.Tunnel;
import io.fairway.testkit.uml.Uml;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * Runs inside user-mode Linux (booted by {@code KernelTableInUmlTest}): the table contract against
 * the kernel, then Fairway's ipvsadm renderings next to real ipvsadm's for the same table, then raw
 * kernel replies for the codec's unit tests. Everything lands in /run/out.
 */
public final class KernelScenarioMain {
  static final Path OUT = Path.of(Uml.OUT);

  public static void main(String[] args) throws Exception {
    List<String> steps =
        args.length > 0
            ? List.of(args)
            : List.of("contract", "formats", "differential", "capture", "timeouts");
    for (String step : steps) {
      switch (step) {
        case "contract" -> runContract();
        case "formats" -> formats();
        case "capture" -> capture();
        case "unprivileged" -> unprivileged();
        case "differential" -> differential();
        case "timeouts" -> timeouts();
        default -> throw new IllegalArgumentException("unknown step " + step);
      }
    }
  }

  private static void runContract() throws IOException {
    List<String> lines = new ArrayList<>();
    Launcher launcher = LauncherFactory.create();
    launcher.execute(
        LauncherDiscoveryRequestBuilder.request()
            .selectors(selectClass(KernelTableContractTest.class))
            .build(),
        new TestExecutionListener() {
          @Override
          public void executionFinished(TestIdentifier id, TestExecutionResult result) {
            if (!id.isTest()) {
              if (result.getStatus() != TestExecutionResult.Status.SUCCESSFUL) {
                lines.add(
                    "FAIL "
                        + id.getDisplayName()
                        + ": "
                        + result.getThrowable().map(Throwable::toString).orElse(""));
              }
              return;
            }
            String name = id.getDisplayName().replace("()", "");
            switch (result.getStatus()) {
              case SUCCESSFUL -> lines.add("PASS " + name);
              default ->
                  lines.add(
                      "FAIL "
                          + name
                          + ": "
                          + result
                              .getThrowable()
                              .map(t -> t.toString().replace('\n', ' '))
                              .orElse(""));
            }
          }

          @Override
          public void executionSkipped(TestIdentifier id, String reason) {
            lines.add("SKIP " + id.getDisplayName() + ": " + reason);
          }
        });
    Files.write(OUT.resolve("contract.txt"), lines);
  }

  /** A table with one of everything ipvsadm can show. */
  public static List<TableOp> sampleTable() throws IOException {
    List<TableOp> ops = new ArrayList<>();
    ServiceKey web = ServiceKey.of(Protocol.TCP, ip("10.16.0.1"), 80);
    ops.add(new TableOp.AddService(Service.of(web, "rr")));
    ops.add(new TableOp.AddDest(web, Dest.of(ip("10.16.1.1"), 80, 1)));
    ops.add(
        new TableOp.AddDest(
            web, new Dest(ip("10.16.1.2"), 8080, ForwardingMethod.MASQ, 0, 100, 50, null)));
    ops.add(new TableOp.AddDest(web, Dest.of(ip("10.20.1.2"), 80, 2)));
    ops.add(new TableOp.AddDest(web, Dest.of(ip("10.16.1.10"), 80, 2)));
    ServiceKey tls = ServiceKey.of(Protocol.TCP, ip("10.16.0.2"), 443);
    ops.add(
        new TableOp.AddService(
            new Service(tls, "wlc", Set.of(ServiceFlag.PERSISTENT), 300, 24, null)));
    ops.add(
        new TableOp.AddDest(
            tls, new Dest(ip("10.16.1.3"), 443, ForwardingMethod.DROUTE, 5, 0, 0, null)));
    ops.add(
        new TableOp.AddDest(
            tls, new Dest(ip("10.16.1.4"), 443, ForwardingMethod.TUNNEL, 2, 0, 0, null)));
    ServiceKey dns = ServiceKey.of(Protocol.UDP, ip("10.16.0.3"), 53);
    ops.add(
        new TableOp.AddService(
            new Service(
                dns,
                "sh",
                Set.of(
                    ServiceFlag.SCHED1,
                    ServiceFlag.SCHED2,
                    ServiceFlag.ONE_PACKET,
                    ServiceFlag.PERSISTENT),
                20,
                16,
                null)));
    ops.add(new TableOp.AddDest(dns, Dest.of(ip("10.16.1.5"), 53, 1)));
    ServiceKey sip = ServiceKey.of(Protocol.UDP, ip("10.16.0.6"), 5060);
    ops.add(
        new TableOp.AddService(
            new Service(sip, "rr", Set.of(ServiceFlag.PERSISTENT), 60, 32, "sip")));
    ServiceKey sctp = ServiceKey.of(Protocol.SCTP, ip("10.16.0.4"), 9);
    ops.add(new TableOp.AddService(Service.of(sctp, "fo")));
    ops.add(new TableOp.AddDest(sctp, Dest.of(ip("10.16.1.7"), 9, 65535)));
    ServiceKey any = ServiceKey.of(Protocol.TCP, ip("10.16.0.5"), 0);
    ops.add(new TableOp.AddService(Service.of(any, "lc").withPersistence(30, 32)));
    ServiceKey none = ServiceKey.of(Protocol.TCP, ip("10.16.0.7"), 80);
    ops.add(new TableOp.AddService(Service.of(none, "none")));
    ServiceKey mark = ServiceKey.fwmark(AddressFamily.INET, 7);
    ops.add(
        new TableOp.AddService(new Service(mark, "mh", Set.of(ServiceFlag.SCHED1), 0, 32, null)));
    ops.add(
        new TableOp.AddDest(
            mark, new Dest(ip("10.16.1.6"), 0, ForwardingMethod.DROUTE, 3, 0, 0, null)));
    ServiceKey mark6 = ServiceKey.fwmark(AddressFamily.INET6, 8);
    ops.add(new TableOp.AddService(Service.of(mark6, "rr").withPersistence(60, 128)));
    ops.add(
        new TableOp.AddDest(
            mark6, new Dest(ip("2001:db8::5"), 0, ForwardingMethod.DROUTE, 1, 0, 0, null)));
    ServiceKey web6 = ServiceKey.of(Protocol.TCP, ip("2001:db8::1"), 80);
    ops.add(
        new TableOp.AddService(
            new Service(
                web6, "wrr", Set.of(ServiceFlag.PERSISTENT, ServiceFlag.SCHED3), 10, 64, null)));
    ops.add(new TableOp.AddDest(web6, Dest.of(ip("2001:db8::2"), 80, 7)));
    ops.add(
        new TableOp.AddDest(
            web6,
            new Dest(
                ip("2001:db8::3"),
                80,
                ForwardingMethod.TUNNEL,
                1,
                0,
                0,
                new Tunnel(Tunnel.Type.GUE, 6080, Tunnel.Checksum.NOCSUM))));
    ops.add(
        new TableOp.AddDest(
            web6,
            new Dest(
                ip("2001:db8::4"),
                80,
                ForwardingMethod.TUNNEL,
                1,
                0,
                0,
                new Tunnel(Tunnel.Type.GRE, 0, Tunnel.Checksum.CSUM))));
    ops.add(
        new TableOp.AddDest(
            web6,
            new Dest(
                ip("2001:db8:0:1::4"),
                80,
                ForwardingMethod.TUNNEL,
                1,
                0,
                0,
                new Tunnel(Tunnel.Type.GUE, 6081, Tunnel.Checksum.REMCSUM))));
    ops.add(
        new TableOp.AddDest(
            web, new Dest(ip("2001:db8::9"), 80, ForwardingMethod.TUNNEL, 1, 0, 0, null)));
    return ops;
  }

  private static void formats() throws Exception {
    List<String> report = new ArrayList<>();
    try (IpvsKernelTable t = IpvsKernelTable.open()) {
      t.flush();
      List<TableOp> ops = sampleTable();
      var results = t.apply(ops);
      for (int i = 0; i < ops.size(); i++) {
        if (results.get(i) != null) {
          report.add("install failed: " + results.get(i).getMessage());
        }
      }
      List<ServiceEntry> installed = t.list();
      Files.writeString(OUT.resolve("fairway-save.txt"), TableFormat.save(installed));
      Files.writeString(
          OUT.resolve("fairway-list.txt"),
          TableFormat.list(installed, t.info().headerLine(), (s, d) -> ""));
      sh("ipvsadm -Sn > /run/out/ipvsadm-save.txt");
      sh("ipvsadm -Ln > /run/out/ipvsadm-list.txt");
      // The other direction: ipvsadm installs, Fairway reads back.
      t.flush();
      sh("ipvsadm -R < /run/out/fairway-save.txt");
      List<ServiceEntry> readBack = t.list();
      Files.writeString(OUT.resolve("readback-save.txt"), TableFormat.save(readBack));
      t.flush();
    }
    Files.write(OUT.resolve("formats.txt"), report);
  }

  /** Seed and length of the differential run; the host replays them on MemoryTable. */
  public static final long DIFF_SEED = 20261129L;

  public static final int DIFF_OPS = 3000;

  /**
   * The random operations of {@link io.fairway.table.RandomOps} against the kernel, in batches of
   * random size (so batch boundaries fall everywhere), recording each result and the final table.
   */
  private static void differential() throws Exception {
    List<TableOp> ops = io.fairway.table.RandomOps.generate(DIFF_SEED, DIFF_OPS);
    List<io.fairway.table.TableException> results = new ArrayList<>();
    java.util.Random sizes = new java.util.Random(DIFF_SEED);
    try (IpvsKernelTable t = IpvsKernelTable.open()) {
      t.flush();
      int i = 0;
      while (i < ops.size()) {
        int n = Math.min(ops.size() - i, 1 + sizes.nextInt(40));
        results.addAll(t.apply(ops.subList(i, i + n)));
        i += n;
      }
      Files.write(
          OUT.resolve("differential-results.txt"), io.fairway.table.RandomOps.describe(results));
      Files.write(OUT.resolve("differential-table.txt"), io.fairway.table.RandomOps.dump(t.list()));
      t.flush();
    }
  }

  /**
   * Timeouts and flush against ipvsadm, both directions: what Fairway reads is what {@code ipvsadm
   * -L --timeout} shows, what it sets ipvsadm shows, a zero field is left alone, and what a flush
   * leaves is what {@code ipvsadm -C} leaves. One line per observation in timeouts.txt.
   */
  private static void timeouts() throws Exception {
    List<String> lines = new ArrayList<>();
    try (IpvsKernelTable t = IpvsKernelTable.open()) {
      lines.add("boot fairway " + t.timeouts().ipvsadmLine());
      lines.add("boot ipvsadm " + shOut("ipvsadm -L --timeout"));
      t.setTimeouts(new io.fairway.table.Timeouts(901, 121, 301));
      lines.add("set-all ipvsadm " + shOut("ipvsadm -L --timeout"));
      t.setTimeouts(new io.fairway.table.Timeouts(0, 55, 0));
      lines.add("set-tcpfin ipvsadm " + shOut("ipvsadm -L --timeout"));
      sh("ipvsadm --set 700 70 170");
      lines.add("ipvsadm-set fairway " + t.timeouts().ipvsadmLine());
      try {
        t.setTimeouts(new io.fairway.table.Timeouts(Integer.MAX_VALUE, 0, 0));
        lines.add("huge accepted " + shOut("ipvsadm -L --timeout"));
      } catch (io.fairway.table.TableException e) {
        lines.add("huge " + e.reason() + " " + e.getMessage());
      }
      t.setTimeouts(io.fairway.table.Timeouts.KERNEL_DEFAULTS);
      t.apply(sampleTable());
      lines.add("before-flush services " + t.list().size());
      t.flush();
      lines.add("after-flush ipvsadm [" + shOut("ipvsadm -Sn") + "]");
    }
    Files.write(OUT.resolve("timeouts.txt"), lines);
  }

  private static String shOut(String cmd) throws IOException, InterruptedException {
    Process p = new ProcessBuilder("/bin/sh", "-c", cmd).redirectErrorStream(true).start();
    String out =
        new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IOException("failed: " + cmd + ": " + out);
    }
    return out.strip();
  }

  /** Run as an unprivileged user: what the operator sees without CAP_NET_ADMIN, on stdout. */
  private static void unprivileged() {
    try (IpvsKernelTable t = IpvsKernelTable.open()) {
      System.out.println("opened without privileges: " + t.info().headerLine());
    } catch (io.fairway.table.TableException e) {
      System.out.println(e.reason());
      System.out.println(e.getMessage());
    }
  }

  /** Raw kernel replies, for the codec's unit tests (copied to src/test/resources/captured). */
  private static void capture() throws Exception {
    try (IpvsKernelTable t = IpvsKernelTable.open()) {
      t.flush();
      t.apply(sampleTable());
    }
    try (NetlinkSocket sock = NetlinkSocket.open(Netlink.NETLINK_GENERIC, 1 << 20, 5000)) {
      GenericNetlink g = new GenericNetlink(sock);
      int family = g.resolveFamily("IPVS").orElseThrow();
      MessageBuilder b = new MessageBuilder();
      int seq = g.nextSeq();
      IpvsCodec.encodeServiceDump(b, family, seq);
      Files.write(OUT.resolve("capture-services.hex"), rawExchange(sock, b.toByteArray()));
      b.reset();
      seq = g.nextSeq();
      IpvsCodec.encodeDestDump(b, family, seq, ServiceKey.of(Protocol.TCP, ip("2001:db8::1"), 80));
      Files.write(OUT.resolve("capture-dests6.hex"), rawExchange(sock, b.toByteArray()));
      b.reset();
      seq = g.nextSeq();
      IpvsCodec.encode(
          b,
          family,
          seq,
          new TableOp.AddDest(
              ServiceKey.of(Protocol.TCP, ip("10.16.0.1"), 80), Dest.of(ip("10.16.1.1"), 80, 1)));
      Files.write(OUT.resolve("capture-eexist.hex"), rawExchange(sock, b.toByteArray()));
      Files.writeString(OUT.resolve("capture-family.txt"), Integer.toString(family));
    }
    sh("ipvsadm -C");
  }

  /** Sends one request and returns the request and every reply datagram as hex lines. */
  private static List<String> rawExchange(NetlinkSocket sock, byte[] request) throws IOException {
    List<String> lines = new ArrayList<>();
    lines.add("> " + HexFormat.of().formatHex(request));
    sock.send(request, request.length);
    boolean done = false;
    while (!done) {
      ByteBuffer got;
      try {
        got = sock.receive();
      } catch (io.fairway.netlink.NetlinkTimeoutException e) {
        lines.add("! timeout");
        return lines;
      }
      byte[] raw = new byte[got.remaining()];
      got.duplicate().get(raw);
      lines.add("< " + HexFormat.of().formatHex(raw));
      for (NetlinkMessage m : NetlinkMessage.parseAll(got)) {
        done |= m.isDone() || m.isError();
      }
    }
    return lines;
  }

  private static void sh(String cmd) throws IOException, InterruptedException {
    Process p = new ProcessBuilder("/bin/sh", "-c", cmd).inheritIO().start();
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IOException("failed: " + cmd);
    }
  }

  public static InetAddress ip(String s) throws IOException {
    return InetAddress.getByName(s);
  }
}
