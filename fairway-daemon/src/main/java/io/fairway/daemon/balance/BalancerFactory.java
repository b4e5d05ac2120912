package io.fairway.daemon.balance;

import io.fairway.director.AbstractDirector;
import io.fairway.director.sched.DestSpec;
import io.fairway.director.sched.Persistence;
import io.fairway.director.sched.SchedService;
import io.fairway.director.sched.Schedulers;
import io.fairway.director.varnish.ShardHealthy;
import io.fairway.director.varnish.Vrnd;
import io.fairway.plan.DirectorFactory;
import io.fairway.plan.DirectorTree;
import io.fairway.plan.MemberPlan;
import io.fairway.plan.Selection;
import io.fairway.plan.ServicePlan;
import io.fairway.table.Dest;
import io.fairway.table.Service;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

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
   * @param alt shard alternative to return, as a request's {@code alt} (it overrides an associated
   *     shard_param's); negative: none asked for, the shard's own default
   */
  public record Options(@Nullable Long seed, @Nullable ShardHealthy healthy, int alt) {
    /** No overrides. */
    public static final Options NONE = new Options(null, null, -1);
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
    if (options.alt() >= 0 && !hasShard(vs.selection())) {
      throw new BalanceException(
          "--alt applies to lb_algo shard only; virtual_server " + vs.name() + " uses " + algo);
    }
    if (vs.selection() instanceof Selection.Kernel k) {
      return kernel(vs, k);
    }
    Selection.Varnish selection = (Selection.Varnish) vs.selection();
    if (options.healthy() != null) {
      selection = withHealthy(selection, options.healthy());
    }
    boolean hashes = hashes(selection);
    DirectorTree tree;
    try {
      tree =
          new DirectorTree(
              vs.name(),
              selection,
              options.seed() == null ? null : new Vrnd(options.seed()),
              () -> FROZEN_NANOS);
    } catch (IllegalArgumentException e) {
      throw new BalanceException(vs.where() + ": " + algo + ": " + e.getMessage());
    }
    List<String> servers = vs.members().stream().map(MemberPlan::name).toList();
    if (tree.layered()) {
      Map<String, MemberPlan> byName = new LinkedHashMap<>();
      vs.members().forEach(m -> byName.put(m.name(), m));
      Map<String, RealServerBackend> backends = new LinkedHashMap<>();
      try {
        tree.update(
            (d, name) -> {
              MemberPlan m = byName.get(name);
              return m == null
                  ? null
                  : DirectorFactory.member(
                      m, backends.computeIfAbsent(name, n -> RealServerBackend.of(m)), true);
            });
      } catch (IllegalArgumentException e) {
        throw new BalanceException(vs.where() + ": " + e.getMessage());
      }
      return new DirectorBalancer(
          vs.name(), tree, servers, hashes, options.alt(), slowStarts(vs), null);
    }
    AbstractDirector<?> d = tree.top();
    for (MemberPlan m : vs.members()) {
      try {
        d.add(DirectorFactory.member(m, RealServerBackend.of(m), true));
      } catch (IllegalArgumentException e) {
        throw new BalanceException(m.where() + ": real_server " + m.name() + ": " + e.getMessage());
      }
    }
    java.time.Duration rampup = selection instanceof Selection.Shard sh ? sh.rampup() : null;
    return new DirectorBalancer(
        vs.name(), tree, servers, hashes, options.alt(), slowStarts(vs), rampup);
  }

  /** Whether a shard director chooses somewhere in this selection (where alt and healthy act). */
  public static boolean hasShard(Selection s) {
    if (s instanceof Selection.Layered l) {
      return l.top() instanceof Selection.Shard
          || l.groups().stream().anyMatch(g -> g.selection() instanceof Selection.Shard);
    }
    return s instanceof Selection.Shard;
  }

  private static boolean hashes(Selection.Varnish s) {
    if (s instanceof Selection.Layered l) {
      return hashes(l.top()) || l.groups().stream().anyMatch(g -> hashes(g.selection()));
    }
    return s instanceof Selection.Hash || s instanceof Selection.Shard;
  }

  /** {@code --healthy} for every shard of the selection, layers included. */
  private static Selection.Varnish withHealthy(Selection.Varnish s, ShardHealthy h) {
    if (s instanceof Selection.Shard sh) {
      return sh.withHealthy(h);
    }
    if (s instanceof Selection.Layered l) {
      List<Selection.Layered.Group> groups = new ArrayList<>();
      for (Selection.Layered.Group g : l.groups()) {
        groups.add(
            new Selection.Layered.Group(g.name(), withHealthy(g.selection(), h), g.members()));
      }
      return new Selection.Layered(withHealthy(l.top(), h), l.members(), groups, l.altHeader());
    }
    return s;
  }

  private static Balancer kernel(ServicePlan vs, Selection.Kernel k) {
    String algo = k.algorithm();
    Service first = vs.services().get(0);
    SchedService service = schedService(vs, k, first);
    Map<String, DestSpec> specs = new LinkedHashMap<>();
    Map<String, Boolean> inhibit = new LinkedHashMap<>();
    for (MemberPlan m : vs.members()) {
      try {
        Dest d = m.dest();
        DestSpec spec =
            new DestSpec(
                m.name(),
                d.address(),
                d.port(),
                m.tableWeight(),
                d.upperThreshold(),
                d.lowerThreshold(),
                m.maxConns());
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
        // Nameless, as the proxy's kernel model makes it: a sorry server is no real server.
        @SuppressWarnings("NullAway")
        DestSpec sorry = new DestSpec(null, ss.address(), ss.port(), 1, 0, 0);
        service.setSorryServer(sorry);
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

  /** The kernel scheduler with the first service's persistence, on a frozen clock. */
  private static SchedService schedService(ServicePlan vs, Selection.Kernel k, Service first) {
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
      return new SchedService(
          Schedulers.create(k.algorithm(), k.flags(), options),
          p,
          System::currentTimeMillis,
          () -> FROZEN_NANOS);
    } catch (IllegalArgumentException e) {
      throw new BalanceException(vs.where() + ": " + e.getMessage());
    }
  }
}
