package io.fairway.table;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * Seeded random table operations over a small universe of services and destinations, so that adds
 * collide, deletes miss and thresholds invert often: the raw material of the differential test
 * between {@link MemoryTable} and the kernel.
 */
public final class RandomOps {
  private RandomOps() {}

  private static final ServiceKey[] SERVICES = {
    ServiceKey.of(Protocol.TCP, TableContract.ip("10.16.0.1"), 80),
    ServiceKey.of(Protocol.UDP, TableContract.ip("2001:db8::1"), 53),
    ServiceKey.fwmark(AddressFamily.INET, 5),
  };
  private static final String[] SCHEDULERS = {"rr", "wrr", "sh", "mh", "wlc", "nosuch"};
  private static final String[] V4 = {"10.16.1.1", "10.16.1.2", "10.16.1.3", "224.0.0.5"};
  private static final String[] V6 = {"2001:db8::11", "2001:db8::12", "ff02::1"};

  /** {@code n} operations from {@code seed}. */
  public static List<TableOp> generate(long seed, int n) {
    Random r = new Random(seed);
    List<TableOp> ops = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      ServiceKey k = SERVICES[r.nextInt(SERVICES.length)];
      int kind = r.nextInt(200);
      if (kind < 30) {
        ops.add(new TableOp.AddService(service(r, k)));
      } else if (kind < 42) {
        ops.add(new TableOp.SetService(service(r, k)));
      } else if (kind < 46) {
        ops.add(new TableOp.DelService(k));
      } else if (kind < 130) {
        ops.add(new TableOp.AddDest(k, dest(r, k)));
      } else if (kind < 170) {
        ops.add(new TableOp.SetDest(k, dest(r, k)));
      } else if (kind < 199) {
        ops.add(new TableOp.DelDest(k, dest(r, k).key()));
      } else {
        ops.add(new TableOp.Flush());
      }
    }
    return ops;
  }

  private static Service service(Random r, ServiceKey k) {
    String sched = SCHEDULERS[r.nextInt(SCHEDULERS.length)];
    int max = k.family() == AddressFamily.INET6 ? 128 : 32;
    if (r.nextBoolean()) {
      return Service.of(k, sched);
    }
    int prefix = r.nextInt(10) == 0 ? 0 : max - r.nextInt(9);
    return new Service(k, sched, Set.of(ServiceFlag.PERSISTENT), 1 + r.nextInt(600), prefix, null);
  }

  private static Dest dest(Random r, ServiceKey k) {
    boolean sameFamily = r.nextInt(8) != 0;
    boolean v6 = (k.family() == AddressFamily.INET6) == sameFamily;
    String[] pool = v6 ? V6 : V4;
    InetAddress a = TableContract.ip(pool[r.nextInt(pool.length)]);
    int port = k.isFwmark() ? 0 : 8080 + r.nextInt(2);
    ForwardingMethod fwd =
        switch (r.nextInt(3)) {
          case 0 -> ForwardingMethod.MASQ;
          case 1 -> ForwardingMethod.DROUTE;
          default -> ForwardingMethod.TUNNEL;
        };
    int upper = r.nextBoolean() ? 0 : 10;
    int lower =
        switch (r.nextInt(4)) {
          case 0 -> 5;
          case 1 -> 20;
          default -> 0;
        };
    return new Dest(a, port, fwd, r.nextInt(6), upper, lower, null);
  }

  /** One line per operation result: its index and reason, or "ok". */
  public static List<String> describe(List<TableException> results) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < results.size(); i++) {
      TableException e = results.get(i);
      out.add(i + " " + (e == null ? "ok" : e.reason() + " " + e.getMessage()));
    }
    return out;
  }

  /** The whole table, thresholds included (which the save format leaves out), in a stable order. */
  public static List<String> dump(List<ServiceEntry> table) {
    List<String> out = new ArrayList<>();
    for (ServiceEntry e : TableFormat.sorted(table)) {
      Service s = e.service();
      out.add(
          s.key()
              + " "
              + s.scheduler()
              + " flags="
              + ServiceFlag.toBits(s.flags())
              + " timeout="
              + s.timeout()
              + " netmask="
              + s.netmask()
              + " pe="
              + s.persistenceEngine());
      for (DestEntry d : TableFormat.sortedDests(e.dests())) {
        Dest x = d.dest();
        out.add(
            "  "
                + x
                + " u="
                + x.upperThreshold()
                + " l="
                + x.lowerThreshold()
                + " tun="
                + x.tunnel());
      }
    }
    return out;
  }
}
