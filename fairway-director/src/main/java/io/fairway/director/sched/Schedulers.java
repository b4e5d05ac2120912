package io.fairway.director.sched;

import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Creates schedulers from keepalived's words: {@code lb_algo NAME} and the scheduler flags ({@code
 * sh-fallback}, {@code sh-port}, {@code mh-fallback}, {@code mh-port}, {@code flag-1..3}).
 *
 * <p>Errors are {@link IllegalArgumentException}s with a one-line message naming the offending
 * word; the config parser prefixes file:line.
 */
public final class Schedulers {
  private Schedulers() {}

  /** The kernel's schedulers Fairway reproduces, then the userspace-only ones. */
  public static final List<String> KERNEL_NAMES =
      List.of("rr", "wrr", "lc", "wlc", "sh", "dh", "mh", "sed", "nq", "fo", "ovf");

  public static final List<String> USERSPACE_NAMES = List.of("twos");

  /** Options beyond the kernel, for the userspace data plane. */
  public record Options(int mhTableSize, int hashBalanceFactor) {
    public static final Options KERNEL = new Options(MaglevHashing.KERNEL_TABLE_SIZE, 0);

    public Options {
      if (!MaglevHashing.isPrime(mhTableSize) || mhTableSize < 251) {
        throw new IllegalArgumentException(
            "mh table size " + mhTableSize + " must be a prime >= 251");
      }
      if (hashBalanceFactor != 0 && hashBalanceFactor < 100) {
        throw new IllegalArgumentException(
            "hash_balance_factor "
                + hashBalanceFactor
                + " must be 0 (off) or a percentage of at least 100");
      }
    }
  }

  public static boolean isKnown(String name) {
    String n = name.toLowerCase(Locale.ROOT);
    return KERNEL_NAMES.contains(n) || USERSPACE_NAMES.contains(n);
  }

  /** A kernel-exact scheduler. */
  public static KernelScheduler create(String name, Collection<String> flags) {
    return create(name, flags, Options.KERNEL);
  }

  public static KernelScheduler create(String name, Collection<String> flags, Options options) {
    String n = name.toLowerCase(Locale.ROOT);
    if (!isKnown(n)) {
      throw new IllegalArgumentException(
          "unknown scheduler '"
              + name
              + "' (expected one of "
              + String.join(" ", KERNEL_NAMES)
              + " "
              + String.join(" ", USERSPACE_NAMES)
              + ")");
    }
    Set<String> f = normalizeFlags(n, flags);
    boolean fallback = f.contains("flag-1");
    boolean port = f.contains("flag-2");
    if (options.hashBalanceFactor() != 0 && !n.equals("mh")) {
      throw new IllegalArgumentException("hash_balance_factor applies to mh only, not '" + n + "'");
    }
    return switch (n) {
      case "rr" -> new RoundRobin();
      case "wrr" -> new WeightedRoundRobin();
      case "lc" -> new LeastConnection();
      case "wlc" -> new WeightedLeastConnection();
      case "sed" -> new ShortestExpectedDelay();
      case "nq" -> new NeverQueue();
      case "fo" -> new WeightedFailover();
      case "ovf" -> new WeightedOverflow();
      case "sh" -> new SourceHashing(fallback, port);
      case "dh" -> new DestinationHashing();
      case "mh" ->
          new MaglevHashing(fallback, port, options.mhTableSize(), options.hashBalanceFactor());
      case "twos" -> new PowerOfTwoChoices();
      default -> throw new AssertionError(n);
    };
  }

  /**
   * Maps the named flags onto the kernel's SCHED1..3 bits ({@code flag-1..3}), checking that a
   * scheduler-specific flag matches the scheduler, as keepalived does.
   */
  static Set<String> normalizeFlags(String sched, Collection<String> flags) {
    Set<String> out = new LinkedHashSet<>();
    for (String raw : flags) {
      String flag = raw.toLowerCase(Locale.ROOT);
      switch (flag) {
        case "flag-1", "flag-2", "flag-3" -> out.add(flag);
        case "sh-fallback", "sh-port", "mh-fallback", "mh-port" -> {
          String owner = flag.substring(0, 2);
          if (!owner.equals(sched)) {
            throw new IllegalArgumentException(
                "flag '" + raw + "' needs lb_algo " + owner + ", not " + sched);
          }
          out.add(flag.endsWith("fallback") ? "flag-1" : "flag-2");
        }
        default ->
            throw new IllegalArgumentException(
                "unknown scheduler flag '"
                    + raw
                    + "' (expected sh-fallback sh-port mh-fallback mh-port flag-1 flag-2 flag-3)");
      }
    }
    return out;
  }

  /**
   * How many slots of its lookup table each server owns, for sh and mh (the exact share of clients
   * it gets under uniform hashing); empty for the other schedulers. For simulators and operators'
   * "is this balanced" checks.
   */
  public static java.util.Map<SchedDest, Integer> tableSlots(KernelScheduler s) {
    SchedDest[] table =
        s instanceof MaglevHashing m
            ? m.lookupTable()
            : s instanceof SourceHashing h ? h.lookupTable() : new SchedDest[0];
    java.util.Map<SchedDest, Integer> out = new java.util.LinkedHashMap<>();
    for (SchedDest d : table) if (d != null) out.merge(d, 1, Integer::sum);
    return out;
  }

  /**
   * A service using {@code name} with the given real servers, listed in the order they are added.
   */
  public static SchedService service(
      String name, Collection<String> flags, List<DestSpec> servers) {
    SchedService vs = new SchedService(create(name, flags));
    for (DestSpec s : servers) vs.add(s);
    return vs;
  }
}
