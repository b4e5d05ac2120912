package io.fairway.plan;

import io.fairway.config.model.DirectorSpec;
import io.fairway.director.varnish.ShardBy;
import io.fairway.director.varnish.ShardHealthy;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * How a service chooses among its members: one of the kernel's schedulers or one of the Varnish
 * directors, each with its parameters typed. Every default lives in the configuration model ({@link
 * DirectorSpec}); {@link #defaults(String)} takes them from there for a service the plan did not
 * describe.
 */
public sealed interface Selection {

  /** The {@code lb_algo} keyword. */
  String algorithm();

  /** One line for dumps, logs and status, parameters included. */
  String describe();

  /**
   * The request header whose value is the shard {@code alt} for that request ({@code alt_header}),
   * if the service has one.
   */
  default Optional<String> altHeader() {
    return Optional.empty();
  }

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
      return algorithm
          + (flags.isEmpty() ? "" : " " + String.join(",", flags))
          + (hashBalanceFactor > 0 ? " hash_balance_factor " + hashBalanceFactor : "");
    }
  }

  /** A Varnish director; {@link DirectorFactory} builds it. */
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
   * Varnish's shard director. The pick arguments ({@code by}, {@code healthy}, {@code warmup},
   * {@code alt}, {@code rampupOn}) are the service's defaults for every pick: its own settings over
   * its associated {@code shard_param} over Varnish's defaults; a request's {@code alt} ({@link
   * #altHeader()}, a retry) overrides {@code alt}.
   *
   * @param replicas ring points per member at weight 1
   * @param by how the director derives the key from what the data plane gives it
   * @param healthy how health counts while walking the ring
   * @param warmup probability of sending a request to the next member, {@code 0..1}; applied as
   *     Varnish's per-call {@code warmup=} (a {@code shard_param}), which accepts 1.0
   * @param rampup how long a recovered member takes to reach its full share
   * @param hashBalanceFactor bounded load in percent of the mean, 0 for none
   * @param alt the alternative a request gets unless it asks for another
   * @param rampupOn whether rampup applies to picks (shard_param {@code rampup})
   * @param param the associated {@code shard_param}'s name, for dumps and status
   * @param altHeader the request header that sets {@code alt} per request
   */
  record Shard(
      int replicas,
      ShardBy by,
      ShardHealthy healthy,
      double warmup,
      Duration rampup,
      int hashBalanceFactor,
      int alt,
      boolean rampupOn,
      Optional<String> param,
      Optional<String> altHeader)
      implements Varnish {
    public Shard {
      Objects.requireNonNull(by, "by");
      Objects.requireNonNull(healthy, "healthy");
      Objects.requireNonNull(rampup, "rampup");
      Objects.requireNonNull(param, "param");
      Objects.requireNonNull(altHeader, "altHeader");
      if (alt < 0) {
        throw new IllegalArgumentException("alt must be >= 0: " + alt);
      }
    }

    /** Alt 0, rampup on, no shard_param, no alt header. */
    public Shard(
        int replicas,
        ShardBy by,
        ShardHealthy healthy,
        double warmup,
        Duration rampup,
        int hashBalanceFactor) {
      this(
          replicas,
          by,
          healthy,
          warmup,
          rampup,
          hashBalanceFactor,
          0,
          true,
          Optional.empty(),
          Optional.empty());
    }

    /** This shard with another health mode ({@code pick --healthy}). */
    public Shard withHealthy(ShardHealthy h) {
      return new Shard(
          replicas, by, h, warmup, rampup, hashBalanceFactor, alt, rampupOn, param, altHeader);
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
      return String.format(
          Locale.ROOT,
          "shard replicas %d by %s healthy %s warmup %s rampup %ss%s%s%s%s%s",
          replicas,
          by,
          healthy,
          warmup,
          rampupSeconds(),
          rampupOn ? "" : " (rampup off)",
          alt != 0 ? " alt " + alt : "",
          param.map(p -> " shard_param " + p).orElse(""),
          altHeader.map(h -> " alt_header " + h).orElse(""),
          hashBalanceFactor > 0 ? " hash_balance_factor " + hashBalanceFactor : "");
    }
  }

  /**
   * A Varnish director some of whose members are other directors of the same service (Varnish's
   * layering, each inner director resolved when a request comes, as {@code resolve=LAZY}). {@link
   * DirectorTree} builds it.
   *
   * @param top the service's own director
   * @param members the top director's members, in order
   * @param groups the named directors, each after every director it contains (leaves first)
   * @param altHeader the request header that sets the shard {@code alt} per request
   */
  record Layered(Varnish top, List<Ref> members, List<Group> groups, Optional<String> altHeader)
      implements Varnish {
    public Layered {
      Objects.requireNonNull(top, "top");
      if (top instanceof Layered) {
        throw new IllegalArgumentException("the top of a layered director is a plain director");
      }
      members = List.copyOf(members);
      groups = List.copyOf(groups);
      Objects.requireNonNull(altHeader, "altHeader");
    }

    /** A member of a layer: a real server or another director, by name. */
    public sealed interface Ref {
      String name();
    }

    /** A real server of the service, by its name. */
    public record Server(String name) implements Ref {}

    /** A named director of the service. */
    public record Nested(String name) implements Ref {}

    /** A named director: its selection (never layered itself) and members. */
    public record Group(String name, Varnish selection, List<Ref> members) {
      public Group {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(selection, "selection");
        if (selection instanceof Layered) {
          throw new IllegalArgumentException("a group's selection is a plain director");
        }
        members = List.copyOf(members);
      }
    }

    @Override
    public String algorithm() {
      return top.algorithm();
    }

    @Override
    public String describe() {
      StringBuilder b = new StringBuilder(top.describe()).append(" over ").append(names(members));
      for (Group g : groups) {
        b.append("; director ")
            .append(g.name())
            .append(": ")
            .append(g.selection().describe())
            .append(" over ")
            .append(names(g.members()));
      }
      altHeader.ifPresent(h -> b.append("; alt_header ").append(h));
      return b.toString();
    }

    private static String names(List<Ref> refs) {
      return "[" + String.join(" ", refs.stream().map(Ref::name).toList()) + "]";
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
      case "shard" ->
          new Shard(
              DirectorSpec.Shard.DEFAULT_REPLICAS,
              ShardBy.HASH,
              ShardHealthy.CHOSEN,
              0,
              Duration.ZERO,
              0);
      default -> new Kernel(a, List.of(), 0);
    };
  }
}
