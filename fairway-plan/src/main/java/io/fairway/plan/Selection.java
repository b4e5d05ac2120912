package io.fairway.plan;

import io.fairway.config.model.DirectorSpec;
import io.fairway.director.varnish.ShardBy;
import io.fairway.director.varnish.ShardHealthy;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * How a service chooses among its members: one of the kernel's schedulers or one of the Varnish
 * directors, each with its parameters typed. Every default lives in the configuration model
 * ({@link DirectorSpec}); {@link #defaults(String)} takes them from there for a service the plan
 * did not describe.
 */
public sealed interface Selection {

  /** The {@code lb_algo} keyword. */
  String algorithm();

  /** One line for dumps, logs and status, parameters included. */
  String describe();

  /**
   * An IPVS scheduler (rr, wlc, sh, mh, ...).
   *
   * @param flags the scheduler flags as the director library names them ({@code flag-1}, ...)
   * @param hashBalanceFactor mh's bounded-load factor in percent, 0 for none
   */
  record Kernel(String algorithm, List<String> flags, int hashBalanceFactor) implements Selection {
    public Kernel {
      Objects.requireNonNull(algorithm, "algorithm");
      flags = List.copyOf(flags);
    }

    @Override
    public String describe() {
      return algorithm + (flags.isEmpty() ? "" : " " + String.join(",", flags))
          + (hashBalanceFactor > 0 ? " hash_balance_factor " + hashBalanceFactor : "");
    }
  }

  /** A Varnish director; {@link Directors} builds it. */
  sealed interface Varnish extends Selection {}

  /** Varnish's round_robin. */
  record RoundRobin() implements Varnish {
    @Override
    public String algorithm() {
      return "round_robin";
    }

    @Override
    public String describe() {
      return algorithm();
    }
  }

  /** Varnish's random. */
  record Random() implements Varnish {
    @Override
    public String algorithm() {
      return "random";
    }

    @Override
    public String describe() {
      return algorithm();
    }
  }

  /** Varnish's fallback; {@code sticky} keeps the backend in use while it is healthy. */
  record Fallback(boolean sticky) implements Varnish {
    @Override
    public String algorithm() {
      return "fallback";
    }

    @Override
    public String describe() {
      return "fallback sticky " + sticky;
    }
  }

  /** Varnish's hash director. */
  record Hash() implements Varnish {
    @Override
    public String algorithm() {
      return "hash";
    }

    @Override
    public String describe() {
      return algorithm();
    }
  }

  /**
   * Varnish's shard director.
   *
   * @param replicas ring points per member at weight 1
   * @param by how the director derives the key from what the data plane gives it
   * @param healthy how health counts while walking the ring
   * @param warmup probability of sending a request to the next member, {@code 0..1}; applied as
   *     Varnish's per-call {@code warmup=} (a {@code shard_param}), which accepts 1.0
   * @param rampup how long a recovered member takes to reach its full share
   * @param hashBalanceFactor bounded load in percent of the mean, 0 for none
   */
  record Shard(int replicas, ShardBy by, ShardHealthy healthy, double warmup, Duration rampup,
      int hashBalanceFactor) implements Varnish {
    public Shard {
      Objects.requireNonNull(by, "by");
      Objects.requireNonNull(healthy, "healthy");
      Objects.requireNonNull(rampup, "rampup");
    }

    @Override
    public String algorithm() {
      return "shard";
    }

    /** The rampup in seconds, as the director library takes it. */
    public double rampupSeconds() {
      return rampup.toNanos() / 1e9;
    }

    @Override
    public String describe() {
      return String.format(Locale.ROOT, "shard replicas %d by %s healthy %s warmup %s rampup %ss%s",
          replicas, by, healthy, warmup, rampupSeconds(),
          hashBalanceFactor > 0 ? " hash_balance_factor " + hashBalanceFactor : "");
    }
  }

  /**
   * The selection of a service named only by its scheduler (a table service the plan does not
   * describe, e.g. added by hand or in a test): the configuration model's defaults.
   */
  static Selection defaults(String algorithm) {
    String a = algorithm.toLowerCase(Locale.ROOT);
    return switch (a) {
      case "round_robin" -> new RoundRobin();
      case "random" -> new Random();
      case "fallback" -> new Fallback(false);
      case "hash" -> new Hash();
      case "shard" -> new Shard(DirectorSpec.Shard.DEFAULT_REPLICAS, ShardBy.HASH,
          ShardHealthy.CHOSEN, 0, Duration.ZERO, 0);
      default -> new Kernel(a, List.of(), 0);
    };
  }
}
