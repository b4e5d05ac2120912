package io.fairway.ipvs.uml;

import io.fairway.ipvs.kernel.IpvsKernelTable;
import io.fairway.table.Dest;
import io.fairway.table.MemoryTable;
import io.fairway.table.Protocol;
import io.fairway.table.Service;
import io.fairway.table.ServiceEntry;
import io.fairway.table.ServiceKey;
import io.fairway.table.TableException;
import io.fairway.table.TableFormat;
import io.fairway.table.TableOp;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs inside user-mode Linux: installs the same table (services x destinations, NAT, wrr) with
 * Fairway's batched kernel table, with Fairway one request per round trip, and with {@code ipvsadm
 * -R}, alternating, and prints the wall time of each. Started by {@link BatchBenchmark} / {@code
 * bench/ipvs-batch.sh}.
 */
public final class BatchBenchmarkMain {
  public static void main(String[] args) throws Exception {
    int services = args.length > 0 ? Integer.parseInt(args[0]) : 10;
    int perService = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
    int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 2;
    List<TableOp> ops = table(services, perService);
    int rules = ops.size();
    MemoryTable spec = new MemoryTable();
    spec.apply(ops);
    Path rulesFile = Path.of("/run/tmp/rules.txt");
    Files.writeString(rulesFile, TableFormat.save(spec.list()));
    System.out.printf(
        "table: %d services x %d destinations = %d rules%n", services, perService, rules);

    // Every measurement starts from a freshly loaded ip_vs: the kernel keeps deleted
    // destinations in a trash list for a while and walks it on every add, so an install right
    // after a flush of 10,000 destinations is several times slower than one on a clean kernel,
    // whoever does it.
    warmUp(ops.subList(0, Math.min(ops.size(), 1 + perService)));
    for (int r = 1; r <= rounds; r++) {
      // alternate who goes first, so drift in the host's load does not favour either
      long batched = 0;
      long ipvsadm = 0;
      for (int turn = 0; turn < 2; turn++) {
        reloadIpvs();
        if ((turn == 0) == (r % 2 == 1)) {
          try (IpvsKernelTable t = IpvsKernelTable.open()) {
            long start = System.nanoTime();
            List<TableException> results = t.apply(ops);
            batched = System.nanoTime() - start;
            start = System.nanoTime();
            check(results, t, rules, services);
            System.out.printf(
                "read-back (list) of %d rules: %d ms%n", rules, ms(System.nanoTime() - start));
          }
        } else {
          long start = System.nanoTime();
          ipvsadmRestore(rulesFile);
          ipvsadm = System.nanoTime() - start;
          try (IpvsKernelTable t = IpvsKernelTable.open()) {
            check(null, t, rules, services);
          }
        }
      }
      System.out.printf(
          "round %d: fairway batched %d ms, ipvsadm -R %d ms, ratio %.1fx%n",
          r, ms(batched), ms(ipvsadm), (double) ipvsadm / batched);
    }
    reloadIpvs();
    try (IpvsKernelTable t = IpvsKernelTable.open()) {
      long start = System.nanoTime();
      List<TableException> oneByOne = new ArrayList<>();
      for (TableOp op : ops) {
        try {
          op.applyTo(t);
          oneByOne.add(null);
        } catch (TableException e) {
          oneByOne.add(e);
        }
      }
      long unbatched = System.nanoTime() - start;
      check(oneByOne, t, rules, services);
      System.out.printf("fairway one request per round trip: %d ms%n", ms(unbatched));
      t.flush();
    }
  }

  /** Class loading and JIT of the install path, so they are not what is measured. */
  private static void warmUp(List<TableOp> some) throws Exception {
    try (IpvsKernelTable t = IpvsKernelTable.open()) {
      t.flush();
      t.apply(some);
      t.list();
      t.flush();
      for (TableOp op : some.subList(0, Math.min(some.size(), 50))) {
        op.applyTo(t);
      }
      t.flush();
    }
  }

  /** Unloads and reloads ip_vs, which empties the table and the trash of deleted destinations. */
  private static void reloadIpvs() throws IOException, InterruptedException {
    Process p =
        new ProcessBuilder(
                "/bin/sh",
                "-c",
                "ipvsadm -C && lsmod | awk '$1 ~ /^ip_vs_/ {print $1}' | xargs -r rmmod && rmmod ip_vs"
                    + " && modprobe ip_vs_wrr")
            .inheritIO()
            .start();
    if (!p.waitFor(2, TimeUnit.MINUTES) || p.exitValue() != 0) {
      throw new IOException("reloading ip_vs failed");
    }
  }

  static List<TableOp> table(int services, int perService) throws IOException {
    List<TableOp> ops = new ArrayList<>();
    for (int s = 0; s < services; s++) {
      ServiceKey k = ServiceKey.of(Protocol.TCP, InetAddress.getByName("10.16.0." + (1 + s)), 80);
      ops.add(new TableOp.AddService(Service.of(k, "wrr")));
      for (int d = 0; d < perService; d++) {
        InetAddress a = InetAddress.getByAddress(new byte[] {10, 17, (byte) (d >> 8), (byte) d});
        ops.add(new TableOp.AddDest(k, Dest.of(a, 8000 + s, 1 + d % 10)));
      }
    }
    return ops;
  }

  private static void check(
      List<TableException> results, IpvsKernelTable t, int rules, int services)
      throws TableException {
    if (results != null) {
      for (TableException e : results) {
        if (e != null) {
          throw new IllegalStateException("install failed: " + e.getMessage());
        }
      }
    }
    List<ServiceEntry> listed = t.list();
    int n = listed.size();
    for (ServiceEntry e : listed) {
      n += e.dests().size();
    }
    if (n != rules || listed.size() != services) {
      throw new IllegalStateException("expected " + rules + " rules in the kernel, found " + n);
    }
  }

  private static void ipvsadmRestore(Path rules) throws IOException, InterruptedException {
    Process p =
        new ProcessBuilder("ipvsadm", "-R")
            .redirectInput(rules.toFile())
            .redirectOutput(ProcessBuilder.Redirect.INHERIT)
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    if (!p.waitFor(10, TimeUnit.MINUTES) || p.exitValue() != 0) {
      throw new IOException("ipvsadm -R failed");
    }
  }

  private static long ms(long nanos) {
    return TimeUnit.NANOSECONDS.toMillis(nanos);
  }
}
