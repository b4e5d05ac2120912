package io.fairway.apply.uml;

import io.fairway.apply.Applier;
import io.fairway.apply.InitialState;
import io.fairway.apply.ServerBinding;
import io.fairway.apply.ServiceBinding;
import io.fairway.ipvs.kernel.IpvsKernelTable;
import io.fairway.table.Dest;
import io.fairway.table.Protocol;
import io.fairway.table.Service;
import io.fairway.table.ServiceKey;
import io.fairway.table.Table;
import io.fairway.table.TableFormat;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Runs inside user-mode Linux: times the applier installing 10 virtual servers x 1,000 real servers
 * (10,010 rules) into the kernel, side by side with {@code ipvsadm -R} of the same rules, then a
 * quorum loss on a 1,000-server virtual server (sorry server in, pool out) and the shutdown
 * removal. Writes {@code results.txt}. Driven by {@code bench/apply-batch.sh}.
 */
public final class ApplyBatchScenario {
  public static void main(String[] args) throws Exception {
    Path out = Path.of(args[0]);
    int services = 10;
    int perService = 1000;
    Map<String, ServiceBinding> config = new LinkedHashMap<>();
    Map<String, Set<String>> alive = new LinkedHashMap<>();
    for (int s = 0; s < services; s++) {
      ServiceKey key = ServiceKey.of(Protocol.TCP, InetAddress.getByName("10.16.0." + (s + 1)), 80);
      List<ServerBinding> servers = new ArrayList<>();
      Set<String> names = new HashSet<>();
      for (int i = 0; i < perService; i++) {
        InetAddress a = InetAddress.getByName("10.17." + (i / 250) + "." + (i % 250 + 1));
        String name = "s" + s + "-" + i;
        servers.add(new ServerBinding(name, Dest.of(a, 80, 1), false, 1));
        names.add(name);
      }
      String vs = "vs" + s;
      config.put(
          vs,
          ServiceBinding.of(vs, Service.of(key, "wlc"), servers)
              .withSorryServer(Dest.of(InetAddress.getByName("10.16.9.9"), 80, 1), false));
      alive.put(vs, names);
    }
    List<String> results = new ArrayList<>();
    try (IpvsKernelTable table = IpvsKernelTable.open()) {
      table.flush();
      // Warm the JIT and the code paths once on a small table, as a long-running daemon would be.
      warmUp(table);

      Applier applier = new Applier(table, config);
      long t0 = System.nanoTime();
      for (Map.Entry<String, Set<String>> e : alive.entrySet()) {
        applier.init(e.getKey(), new InitialState(e.getValue(), true));
      }
      long initNanos = System.nanoTime() - t0;
      String saved = TableFormat.save(table.list());
      int rules = (int) saved.lines().count();

      t0 = System.nanoTime();
      applier.quorum("vs0", false);
      long quorumNanos = System.nanoTime() - t0;

      t0 = System.nanoTime();
      applier.removeAll();
      long removeNanos = System.nanoTime() - t0;
      boolean empty = table.list().isEmpty();

      Path rulesFile = Path.of("/run/tmp/rules.txt");
      Files.writeString(rulesFile, saved, StandardCharsets.UTF_8);
      t0 = System.nanoTime();
      Process p =
          new ProcessBuilder("ipvsadm", "-R")
              .redirectInput(rulesFile.toFile())
              .redirectErrorStream(true)
              .start();
      String ipvsadmOut = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      int code = p.waitFor();
      long ipvsadmNanos = System.nanoTime() - t0;
      int restored = (int) TableFormat.save(table.list()).lines().count();
      table.flush();

      results.add("rules " + rules);
      results.add(String.format("applier_init_ms %.0f", initNanos / 1e6));
      results.add(
          String.format(
              "ipvsadm_restore_ms %.0f (exit %d, %d rules restored%s)",
              ipvsadmNanos / 1e6,
              code,
              restored,
              ipvsadmOut.isBlank() ? "" : ", " + ipvsadmOut.strip()));
      results.add(String.format("ratio_init_over_ipvsadm %.3f", (double) initNanos / ipvsadmNanos));
      results.add(String.format("quorum_loss_1000_servers_ms %.0f", quorumNanos / 1e6));
      results.add(String.format("remove_all_ms %.0f (table empty: %s)", removeNanos / 1e6, empty));
    }
    Files.write(out.resolve("results.txt"), results, StandardCharsets.UTF_8);
  }

  private static void warmUp(Table table) throws Exception {
    for (int round = 0; round < 3; round++) {
      ServiceKey key = ServiceKey.of(Protocol.TCP, InetAddress.getByName("10.16.8.1"), 80);
      List<ServerBinding> servers = new ArrayList<>();
      Set<String> names = new HashSet<>();
      for (int i = 0; i < 200; i++) {
        servers.add(
            new ServerBinding(
                "w" + i, Dest.of(InetAddress.getByName("10.18.0." + (i + 1)), 80, 1), false, 1));
        names.add("w" + i);
      }
      Applier a =
          new Applier(table, Map.of("w", ServiceBinding.of("w", Service.of(key, "rr"), servers)));
      a.init("w", new InitialState(names, true));
      a.removeAll();
    }
  }
}
