package io.fairway.apply.uml;

import io.fairway.apply.Applier;
import io.fairway.apply.Drift;
import io.fairway.apply.InitialState;
import io.fairway.apply.ServerBinding;
import io.fairway.apply.ServiceBinding;
import io.fairway.ipvs.kernel.IpvsKernelTable;
import io.fairway.table.Dest;
import io.fairway.table.ForwardingMethod;
import io.fairway.table.Protocol;
import io.fairway.table.Service;
import io.fairway.table.ServiceKey;
import io.fairway.table.TableFormat;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Runs inside user-mode Linux: drives an {@link Applier} over the kernel's IPVS through install,
 * drain, remove, quorum loss and return, reload, drift made with ipvsadm, and shutdown. After each
 * step it writes the table as read back over netlink ({@code step-N.txt}) and as {@code ipvsadm
 * -Sn} prints it ({@code ipvsadm-N.txt}), both sorted, to the output directory.
 */
public final class KernelScenario {
  private static final ServiceKey WEB = ServiceKey.of(Protocol.TCP, ip("10.16.0.1"), 80);
  private static final ServiceKey DR = ServiceKey.fwmark(io.fairway.table.AddressFamily.INET, 5);
  private static final ServiceKey V6 = ServiceKey.of(Protocol.UDP, ip("2001:db8::1"), 53);

  private final Path out;
  private final IpvsKernelTable table;
  private int step;

  private KernelScenario(Path out, IpvsKernelTable table) {
    this.out = out;
    this.table = table;
  }

  public static void main(String[] args) throws Exception {
    Path out = Path.of(args[0]);
    try (IpvsKernelTable table = IpvsKernelTable.open()) {
      table.flush();
      new KernelScenario(out, table).run();
    }
  }

  private static Map<String, ServiceBinding> config(int weightA, boolean withC, boolean withD) {
    List<ServerBinding> web = new ArrayList<>();
    web.add(new ServerBinding("a", Dest.of(ip("10.16.1.1"), 80, weightA), false, weightA));
    web.add(new ServerBinding("b", Dest.of(ip("10.16.1.2"), 80, 1), true, 1));
    if (withC) {
      web.add(new ServerBinding("c", Dest.of(ip("10.16.1.3"), 80, 1), false, 1));
    }
    if (withD) {
      web.add(new ServerBinding("d", Dest.of(ip("10.16.1.4"), 8080, 1), false, 1));
    }
    Map<String, ServiceBinding> m = new LinkedHashMap<>();
    m.put(
        "web",
        ServiceBinding.of("web", Service.of(WEB, "wrr"), web)
            .withSorryServer(Dest.of(ip("10.16.9.9"), 80, 1), false));
    // Direct routing on a fwmark service: the destination's port becomes 0.
    m.put(
        "dr",
        ServiceBinding.of(
            "dr",
            Service.of(DR, "sh").withPersistence(60, 24),
            List.of(
                new ServerBinding(
                    "e",
                    new Dest(ip("10.16.2.1"), 80, ForwardingMethod.DROUTE, 3, 100, 10, null),
                    false,
                    3))));
    m.put(
        "v6",
        ServiceBinding.of(
            "v6",
            Service.of(V6, "rr"),
            List.of(new ServerBinding("f", Dest.of(ip("2001:db8::10"), 53, 1), false, 1))));
    return m;
  }

  private void run() throws Exception {
    Applier a = new Applier(table, config(2, true, false));
    a.init("web", new InitialState(Set.of("a", "b", "c"), true));
    a.init("dr", new InitialState(Set.of("e"), true));
    a.init("v6", new InitialState(Set.of("f"), true));
    dump(); // 1: install
    // ipvsadm -Sn does not show thresholds; the read-back carries them.
    write(
        "thresholds.txt",
        table.list().stream()
            .filter(e -> e.service().key().equals(DR))
            .flatMap(e -> e.dests().stream())
            .map(d -> d.dest().upperThreshold() + " " + d.dest().lowerThreshold())
            .toList());

    a.setAlive("web", "b", false);
    dump(); // 2: drain (inhibit: weight 0)

    a.setAlive("web", "c", false);
    dump(); // 3: remove

    a.setAlive("web", "a", false);
    a.quorum("web", false);
    dump(); // 4: quorum lost: sorry server in, pool out

    a.setAlive("web", "b", true);
    a.setAlive("web", "a", true);
    a.quorum("web", true);
    dump(); // 5: quorum back

    a.replace(config(5, false, true));
    a.setAlive("web", "d", true);
    dump(); // 6: reload: a reweighted, c removed, d added

    ipvsadm("-d", "-t", "10.16.0.1:80", "-r", "10.16.1.1:80");
    ipvsadm("-a", "-t", "10.16.0.1:80", "-r", "10.16.7.7:80", "-m", "-w", "1");
    ipvsadm("-e", "-t", "10.16.0.1:80", "-r", "10.16.1.2:80", "-m", "-w", "9");
    ipvsadm("-D", "-u", "[2001:db8::1]:53");
    dump(); // 7: drift made behind Fairway's back
    List<Drift> drifts = a.repairDrift();
    write("drift.txt", drifts.stream().map(Drift::toString).sorted().toList());
    dump(); // 8: converged again

    a.removeAll();
    dump(); // 9: shutdown
  }

  private void dump() throws Exception {
    step++;
    write("step-" + step + ".txt", TableFormat.saveLines(table.list()).stream().sorted().toList());
    write("ipvsadm-" + step + ".txt", ipvsadm("-Sn").lines().sorted().toList());
  }

  private void write(String name, List<String> lines) throws Exception {
    Files.write(out.resolve(name), lines, StandardCharsets.UTF_8);
  }

  private static String ipvsadm(String... args) throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add("ipvsadm");
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (p.waitFor() != 0) {
      throw new IllegalStateException(String.join(" ", cmd) + ": " + output);
    }
    return output;
  }

  private static InetAddress ip(String s) {
    try {
      return InetAddress.getByName(s);
    } catch (java.net.UnknownHostException e) {
      throw new IllegalArgumentException(e);
    }
  }
}
