package io.fairway.daemon.uml;

import io.fairway.ipvs.kernel.IpvsKernelTable;
import io.fairway.table.SyncDaemon;
import io.fairway.table.SyncDaemon.Role;
import io.fairway.table.TableException;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

/**
 * Inside user-mode Linux (run by {@link SyncDaemonUmlTest}): the sync daemon commands through
 * {@link IpvsKernelTable} against the real kernel, each step compared with what {@code ipvsadm -L
 * --daemon} reports, and ipvsadm's own daemon read back through netlink. Writes {@code
 * /run/out/netlink.properties}: for each step, what GET_DAEMON returned (as ipvsadm lines), what
 * ipvsadm printed, and the refusals' messages.
 *
 * <p>Usage: {@code SyncDaemonNetlinkMain INTERFACE}
 */
public final class SyncDaemonNetlinkMain {
  private SyncDaemonNetlinkMain() {}

  public static void main(String[] args) throws Exception {
    String ifname = args[0];
    Properties p = new Properties();
    try (IpvsKernelTable t = IpvsKernelTable.open()) {
      step(p, "0-empty", t);
      t.startSyncDaemon(SyncDaemon.of(Role.MASTER, ifname, 51));
      step(p, "1-master", t);
      t.startSyncDaemon(
          new SyncDaemon(
              Role.BACKUP, ifname, 200, 1400, 8850, 2, InetAddress.getByName("239.1.2.3")));
      step(p, "2-both", t);
      p.setProperty(
          "eexist", refusal(() -> t.startSyncDaemon(SyncDaemon.of(Role.MASTER, ifname, 1))));
      t.stopSyncDaemon(Role.MASTER);
      step(p, "3-backup", t);
      p.setProperty("esrch", refusal(() -> t.stopSyncDaemon(Role.MASTER)));
      p.setProperty(
          "enodev", refusal(() -> t.startSyncDaemon(SyncDaemon.of(Role.MASTER, "nosuch0", 1))));
      t.stopSyncDaemon(Role.BACKUP);
      step(p, "4-none", t);
      // The other way round: ipvsadm starts one, netlink reads and stops it.
      p.setProperty(
          "ipvsadm-start",
          run("ipvsadm", "--start-daemon", "master", "--mcast-interface", ifname, "--syncid", "9"));
      step(p, "5-ipvsadm", t);
      t.stopSyncDaemon(Role.MASTER);
      step(p, "6-stopped", t);
    }
    try (var out = Files.newBufferedWriter(Path.of("/run/out/netlink.properties"))) {
      p.store(out, null);
    }
  }

  interface Call {
    void run() throws TableException;
  }

  private static String refusal(Call c) {
    try {
      c.run();
      return "accepted";
    } catch (TableException e) {
      return e.reason() + " " + e.getMessage();
    }
  }

  private static void step(Properties p, String name, IpvsKernelTable t) throws Exception {
    List<String> lines = new ArrayList<>();
    for (SyncDaemon d : t.syncDaemons()) {
      lines.add(d.ipvsadmLine());
    }
    p.setProperty(name + ".netlink", String.join("\n", lines));
    p.setProperty(name + ".ipvsadm", run("ipvsadm", "-L", "--daemon").strip());
  }

  private static String run(String... cmd) throws IOException, InterruptedException {
    Process pr = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(pr.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    return pr.waitFor() + ":" + out;
  }
}
