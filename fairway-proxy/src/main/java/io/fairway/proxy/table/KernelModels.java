package io.fairway.proxy.table;

import io.fairway.director.sched.DestSpec;
import io.fairway.director.sched.KernelScheduler;
import io.fairway.director.sched.Persistence;
import io.fairway.director.sched.SchedService;
import io.fairway.director.sched.Schedulers;
import io.fairway.plan.Selection;
import io.fairway.table.AddressFamily;
import io.fairway.table.Dest;
import io.fairway.table.Service;
import io.fairway.table.ServiceFlag;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The kernel-scheduler path's translation of the table's words into the director library's model of
 * an IPVS service: scheduler flags, persistence templates, the mh table's bound and each
 * destination's settings. Kept apart from {@link ProxyService}, which also runs the Varnish
 * directors, so that what the kernel model is told is in one place and reads as ipvsadm's options.
 */
final class KernelModels {
  private KernelModels() {}

  /** A new model of the service for its kernel scheduler, with the sorry server if any. */
  static SchedService create(Service s, Selection.Kernel k, @Nullable InetSocketAddress sorry) {
    KernelScheduler ks = Schedulers.create(k.algorithm(), flags(s), schedulerOptions(k));
    SchedService kernel = new SchedService(ks, persistence(s), System::currentTimeMillis);
    if (sorry != null) {
      kernel.setSorryServer(new DestSpec("", sorry.getAddress(), sorry.getPort(), 1, 0, 0));
    }
    return kernel;
  }

  /** The kernel model's spec of a destination: the table's settings and the plan's max_conns. */
  static DestSpec spec(Dest d, int maxConns) {
    return new DestSpec(
        "", d.address(), d.port(), d.weight(), d.upperThreshold(), d.lowerThreshold(), maxConns);
  }

  /** The kernel's mh table, bounded by {@code hash_balance_factor} when the config sets one. */
  private static Schedulers.Options schedulerOptions(Selection.Kernel k) {
    return k.hashBalanceFactor() == 0
        ? Schedulers.Options.KERNEL
        : new Schedulers.Options(Schedulers.Options.KERNEL.mhTableSize(), k.hashBalanceFactor());
  }

  private static List<String> flags(Service s) {
    List<String> f = new ArrayList<>();
    if (s.flags().contains(ServiceFlag.SCHED1)) {
      f.add("flag-1");
    }
    if (s.flags().contains(ServiceFlag.SCHED2)) {
      f.add("flag-2");
    }
    if (s.flags().contains(ServiceFlag.SCHED3)) {
      f.add("flag-3");
    }
    return f;
  }

  private static Persistence persistence(Service s) {
    if (!s.flags().contains(ServiceFlag.PERSISTENT) || s.timeout() == 0) {
      return Persistence.NONE;
    }
    Persistence p = Persistence.seconds(s.timeout());
    if (s.key().family() == AddressFamily.INET6) {
      p = p.withIpv6Prefix(Math.max(1, s.netmask()));
    } else {
      int prefix = s.netmask();
      p = p.withIpv4Mask(prefix == 0 ? 0 : (int) (0xffffffffL << (32 - prefix)));
    }
    // Drain means "no new connections", sticky clients included (see DirectorPersistence).
    return p.withExpireQuiescentTemplate(true);
  }
}
