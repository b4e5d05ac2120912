package io.fairway.daemon.balance;

import io.fairway.director.AbstractDirector;
import io.fairway.director.sched.DestSpec;
import io.fairway.director.sched.Persistence;
import io.fairway.director.sched.Schedulers;
import io.fairway.director.sched.VirtualService;
import io.fairway.director.varnish.ShardHealthy;
import io.fairway.director.varnish.Vrnd;
import io.fairway.plan.Directors;
import io.fairway.plan.MemberPlan;
import io.fairway.plan.Selection;
import io.fairway.plan.ServicePlan;
import io.fairway.table.Dest;
import io.fairway.table.Service;
import java.net.InetAddress;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Builds the {@link Balancer} for a planned service: its selection and its members (name, ident,
 * decimal weight) become the director or kernel scheduler the data plane runs, with every real
 * server up.
 */
public final class BalancerFactory {

  /**
   * Overrides for what-if runs ({@code fairway pick}).
   *
   * @param seed seed for the random director's generator (as {@code debug.srandom}); {@code null}
   *     for a non-reproducible per-thread generator
   * @param healthy overrides the shard {@code healthy} mode; {@code null} keeps the configured one
   * @param alt shard alternative to return, 0 for the first choice
   */
  public record Options(Long seed, ShardHealthy healthy, int alt) {
    /** No overrides. */
    public static final Options NONE = new Options(null, null, 0);
  }

  /**
   * The what-if clock, in nanoseconds: it never moves, so a ramp put in place by {@link
   * Balancer#ramp} stays where it was put for every pick.
   */
  static final long FROZEN_NANOS = 1L << 62;

  private BalancerFactory() {}

  /** The slow start of each real server by name, as the plan gives it (zero: none). */
  private static Map<String, java.time.Duration> slowStarts(ServicePlan vs) {
    Map<String, java.time.Duration> m = new LinkedHashMap<>();
    for (MemberPlan p : vs.members()) {
      m.put(p.name(), p.slowStart());
    }
    return m;
  }

  /**
   * Builds the balancer of a service plan, with the director or scheduler the data plane builds
   * from the same plan; throws {@link BalanceException} with a {@code FILE:LINE:} message.
   */
  public static Balancer build(ServicePlan vs, Options options) {
    String algo = vs.selection().algorithm();
    if (options.alt() != 0 && !(vs.selection() instanceof Selection.Shard)) {
      throw new BalanceException("--alt applies to lb_algo shard only; virtual_server " + vs.name()
          + " uses " + algo);
    }
    if (vs.selection() instanceof Selection.Kernel k) {
      return kernel(vs, k);
    }
    Selection.Varnish selection = (Selection.Varnish) vs.selection();
    if (selection instanceof Selection.Shard s && options.healthy() != null) {
      selection = new Selection.Shard(s.replicas(), s.by(), options.healthy(), s.warmup(),
          s.rampup(), s.hashBalanceFactor());
    }
    boolean hashes = selection instanceof Selection.Hash || selection instanceof Selection.Shard;
    AbstractDirector<?> d;
    try {
      d = Directors.create(vs.name(), selection,
          options.seed() == null ? null : new Vrnd(options.seed()), () -> FROZEN_NANOS);
    } catch (IllegalArgumentException e) {
      throw new BalanceException(vs.where() + ": " + algo + ": " + e.getMessage());
    }
    for (MemberPlan m : vs.members()) {
      try {
        d.add(Directors.member(m, RealServerBackend.of(m), true));
      } catch (IllegalArgumentException e) {
        throw new BalanceException(m.where() + ": real_server " + m.name() + ": " + e.getMessage());
      }
    }
    java.time.Duration rampup = selection instanceof Selection.Shard sh ? sh.rampup() : null;
    return new DirectorBalancer(vs.name(), d, hashes, options.alt(), slowStarts(vs), rampup);
  }

  private static Balancer kernel(ServicePlan vs, Selection.Kernel k) {
    String algo = k.algorithm();
    Service first = vs.services().get(0);
    VirtualService service;
    try {
      Persistence p = Persistence.NONE;
      if (first.timeout() > 0) {
        p = Persistence.seconds(first.timeout());
        int bits = first.netmask();
        if (first.key().family() == io.fairway.table.AddressFamily.INET && bits < 32) {
          p = p.withIpv4Mask(bits <= 0 ? 0 : (int) (0xffffffffL << (32 - bits)));
        }
      }
      Schedulers.Options options =
          new Schedulers.Options(Schedulers.Options.KERNEL.mhTableSize(), k.hashBalanceFactor());
      service = new VirtualService(Schedulers.create(algo, k.flags(), options), p,
          System::currentTimeMillis, () -> FROZEN_NANOS);
    } catch (IllegalArgumentException e) {
      throw new BalanceException(vs.where() + ": " + e.getMessage());
    }
    Map<String, DestSpec> specs = new LinkedHashMap<>();
    Map<String, Boolean> inhibit = new LinkedHashMap<>();
    for (MemberPlan m : vs.members()) {
      try {
        Dest d = m.dest();
        DestSpec spec = new DestSpec(m.name(), d.address(), d.port(), m.tableWeight(),
            d.upperThreshold(), d.lowerThreshold());
        if (specs.putIfAbsent(m.name(), spec) != null) {
          throw new IllegalArgumentException("duplicate real_server name " + m.name());
        }
        inhibit.put(m.name(), m.inhibit());
      } catch (IllegalArgumentException e) {
        throw new BalanceException(m.where() + ": real_server " + m.name() + ": " + e.getMessage());
      }
    }
    // Overflow follows overflow_to_sorry_server, as on both data planes (docs/schedulers.md).
    if (vs.sorry().isPresent() && vs.sorry().get().overflow()) {
      Dest ss = vs.sorry().get().dest();
      try {
        service.setSorryServer(new DestSpec(null, ss.address(), ss.port(), 1, 0, 0));
      } catch (IllegalArgumentException e) {
        throw new BalanceException(vs.sorry().get().where() + ": " + e.getMessage());
      }
    }
    InetAddress vip = first.key().isFwmark() ? null : first.key().address();
    int vport = first.key().isFwmark() ? 0 : first.key().port();
    try {
      return new SchedulerBalancer(vs.name(), algo, service, specs, inhibit, vip, vport)
          .withSlowStarts(slowStarts(vs));
    } catch (IllegalArgumentException e) {
      throw new BalanceException(vs.where() + ": " + e.getMessage());
    }
  }
}
