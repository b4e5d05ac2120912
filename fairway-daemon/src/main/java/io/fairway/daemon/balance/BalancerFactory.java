package io.fairway.daemon.balance;

import io.fairway.config.model.DirectorSpec;
import io.fairway.config.model.KeySource;
import io.fairway.config.model.RealServer;
import io.fairway.config.model.SchedulerFlag;
import io.fairway.config.model.VirtualServer;
import io.fairway.config.model.VirtualServerId;
import io.fairway.director.AbstractDirector;
import io.fairway.director.Member;
import io.fairway.director.RandomSource;
import io.fairway.director.sched.DestSpec;
import io.fairway.director.sched.Persistence;
import io.fairway.director.sched.Schedulers;
import io.fairway.director.sched.VirtualService;
import io.fairway.director.varnish.FallbackDirector;
import io.fairway.director.varnish.HashDirector;
import io.fairway.director.varnish.RandomDirector;
import io.fairway.director.varnish.RoundRobinDirector;
import io.fairway.director.varnish.ShardBy;
import io.fairway.director.varnish.ShardDirector;
import io.fairway.director.varnish.ShardHealthy;
import io.fairway.director.varnish.ShardParams;
import io.fairway.director.varnish.Vrnd;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Builds the {@link Balancer} for a configured {@code virtual_server}: its {@code lb_algo}, its
 * director block and its real servers (name, ident, weight) become a director or a kernel
 * scheduler with every real server up.
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

  private BalancerFactory() {}

  /** Builds the balancer; throws {@link BalanceException} with a {@code FILE:LINE:} message. */
  public static Balancer build(VirtualServer vs, Options options) {
    String algo = vs.scheduler().keyword();
    if (vs.scheduler().isKernel()) {
      return kernel(vs, algo);
    }
    AbstractDirector<?> d;
    boolean hashes = false;
    DirectorSpec spec = vs.director();
    switch (vs.scheduler()) {
      case ROUND_ROBIN -> d = new RoundRobinDirector(vs.name());
      case RANDOM ->
          d = new RandomDirector(
              vs.name(),
              options.seed() == null ? RandomSource.threadLocal() : new Vrnd(options.seed()),
              null);
      case FALLBACK ->
          d = new FallbackDirector(
              vs.name(), spec instanceof DirectorSpec.Fallback f && f.sticky(), null);
      case HASH -> {
        d = new HashDirector(vs.name());
        hashes = true;
      }
      case SHARD -> {
        d = shard(vs, spec, options);
        hashes = true;
      }
      default -> throw new BalanceException(vs.location() + ": lb_algo " + algo + " is not supported");
    }
    if (options.alt() != 0 && vs.scheduler() != io.fairway.config.model.Scheduler.SHARD) {
      throw new BalanceException("--alt applies to lb_algo shard only; virtual_server " + vs.name()
          + " uses " + algo);
    }
    for (RealServer rs : vs.realServers()) {
      Member m = Member.of(RealServerBackend.of(rs), rs.weight());
      if (rs.ident() != null && !rs.ident().equals(rs.name())) {
        m = m.withIdent(rs.ident());
      }
      try {
        d.add(m);
      } catch (IllegalArgumentException e) {
        throw new BalanceException(rs.location() + ": real_server " + rs.name() + ": " + e.getMessage());
      }
    }
    return new DirectorBalancer(vs.name(), d, hashes, options.alt());
  }

  private static ShardDirector shard(VirtualServer vs, DirectorSpec spec, Options options) {
    DirectorSpec.Shard s =
        spec instanceof DirectorSpec.Shard sh
            ? sh
            : new DirectorSpec.Shard(
                DirectorSpec.Shard.DEFAULT_REPLICAS,
                KeySource.of(KeySource.Kind.HASH),
                DirectorSpec.Healthy.CHOSEN,
                0,
                java.time.Duration.ZERO);
    ShardHealthy healthy =
        options.healthy() != null ? options.healthy() : ShardHealthy.valueOf(s.healthy().name());
    try {
      // warmup as a parameter (Varnish's backend(warmup=...)) rather than set_warmup(), which
      // refuses 1.0: "always warm the next server" is a valid operator choice.
      ShardParams params = new ShardParams(by(s.by()), healthy, true, s.warmup(), 0);
      double rampup = s.rampup().toNanos() / 1e9;
      return new ShardDirector(
          vs.name(), new ShardDirector.Settings(s.replicas(), 0, rampup, params), null, null);
    } catch (IllegalArgumentException e) {
      throw new BalanceException(vs.location() + ": shard: " + e.getMessage());
    }
  }

  /** Varnish's key modes map directly; Fairway's extra sources hash their string like KEY. */
  private static ShardBy by(KeySource k) {
    return switch (k.kind()) {
      case HASH -> ShardBy.HASH;
      case URL -> ShardBy.URL;
      case BLOB -> ShardBy.BLOB;
      default -> ShardBy.KEY;
    };
  }

  private static Balancer kernel(VirtualServer vs, String algo) {
    List<String> flags = new ArrayList<>();
    for (SchedulerFlag f : vs.flags()) {
      if (f != SchedulerFlag.OPS) {
        flags.add(f.keyword());
      }
    }
    VirtualService service;
    try {
      Persistence p = Persistence.NONE;
      if (vs.persistent()) {
        p = Persistence.seconds(vs.persistenceTimeout().toSeconds());
        if (vs.persistenceGranularity().isPresent()) {
          int bits = vs.persistenceGranularity().get();
          p = p.withIpv4Mask(bits >= 32 ? 0xffffffff : bits <= 0 ? 0 : (int) (0xffffffffL << (32 - bits)));
        }
      }
      Schedulers.Options options =
          new Schedulers.Options(Schedulers.Options.KERNEL.mhTableSize(), vs.hashBalanceFactor());
      service = new VirtualService(Schedulers.create(algo, flags, options), p,
          System::currentTimeMillis);
    } catch (IllegalArgumentException e) {
      throw new BalanceException(vs.location() + ": " + e.getMessage());
    }
    Map<String, DestSpec> specs = new LinkedHashMap<>();
    Map<String, Boolean> inhibit = new LinkedHashMap<>();
    for (RealServer rs : vs.realServers()) {
      try {
        DestSpec d =
            new DestSpec(
                rs.name(),
                rs.id().address(),
                rs.id().port(),
                rs.intWeight(),
                (int) Math.min(Integer.MAX_VALUE, rs.upperThreshold()),
                (int) Math.min(Integer.MAX_VALUE, rs.lowerThreshold()));
        if (specs.putIfAbsent(rs.name(), d) != null) {
          throw new IllegalArgumentException("duplicate real_server name " + rs.name());
        }
        inhibit.put(rs.name(), rs.inhibitOnFailure());
      } catch (IllegalArgumentException e) {
        throw new BalanceException(rs.location() + ": real_server " + rs.name() + ": " + e.getMessage());
      }
    }
    // Overflow follows overflow_to_sorry_server, as on both data planes (docs/schedulers.md).
    if (vs.sorryServer().isPresent() && vs.overflowToSorryServer()) {
      var ss = vs.sorryServer().get();
      try {
        service.setSorryServer(new DestSpec(null, ss.id().address(), ss.id().port(), 1, 0, 0));
      } catch (IllegalArgumentException e) {
        throw new BalanceException(ss.location() + ": " + e.getMessage());
      }
    }
    InetAddress vip = null;
    int vport = 0;
    if (vs.id() instanceof VirtualServerId.Address a) {
      vip = a.address();
      vport = a.port();
    }
    try {
      return new SchedulerBalancer(vs.name(), algo, service, specs, inhibit, vip, vport);
    } catch (IllegalArgumentException e) {
      throw new BalanceException(vs.location() + ": " + e.getMessage());
    }
  }
}
