package io.fairway.cli;

import io.fairway.config.ConfigException;
import io.fairway.config.KeepalivedConfig;
import io.fairway.daemon.Durations;
import io.fairway.daemon.balance.BalanceException;
import io.fairway.daemon.balance.Balancer;
import io.fairway.daemon.balance.BalancerFactory;
import io.fairway.daemon.balance.RampView;
import io.fairway.daemon.balance.SchedulerBalancer;
import io.fairway.director.sched.LoadSnapshot;
import io.fairway.director.varnish.ShardHealthy;
import io.fairway.plan.Plan;
import io.fairway.plan.PlanBuilder;
import io.fairway.plan.PlanException;
import io.fairway.plan.ServicePlan;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code fairway pick}: which real server a virtual server's director chooses for each key, and
 * with {@code --stats --down} how many keys would move if those servers went down: the question an
 * operator asks before taking a server out.
 */
@Command(
    name = "pick",
    mixinStandardHelpOptions = true,
    description = {
      "Print, for each key read (one per line), the real server the virtual server's director"
          + " chooses ('-' when none).",
      "shard hashes a key as shard.key(string), hash as hash.backend(string); sh/dh/mh read a"
          + " client IP or IP:PORT; other algorithms treat each key as one more connection.",
      "real_server_dns blocks are resolved once; the picks are among the servers of that answer."
    })
public final class PickCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  /** Where {@code --keys -} reads from: the standard input {@link Main} was given. */
  @ParentCommand Main main;

  @Option(
      names = {"-f", "--use-file", "--config"},
      required = true,
      paramLabel = "FILE",
      description = "keepalived.conf to read")
  Path config;

  @Option(
      names = "--vs",
      required = true,
      paramLabel = "NAME",
      description = "the virtual_server, by its name (default name IP:PORT)")
  String vs;

  @Option(
      names = "--down",
      split = ",",
      paramLabel = "NAME",
      description = "real servers to treat as down (comma-separated names)")
  List<String> down = new ArrayList<>();

  @Option(
      names = "--alt",
      paramLabel = "N",
      description =
          "shard: return the N-th alternative, as a request's alt (default: the"
              + " shard's own, 0 unless its shard_param sets one)")
  Integer alt;

  @Option(
      names = "--healthy",
      paramLabel = "MODE",
      description = "shard: CHOSEN, IGNORE or ALL (default: the configured one)")
  String healthy;

  @Option(
      names = "--seed",
      paramLabel = "N",
      description = "random: seed the generator like varnishadm debug.srandom N")
  Long seed;

  @Option(
      names = "--keys",
      paramLabel = "FILE",
      defaultValue = "-",
      description = "read keys from FILE, or '-' for standard input (default)")
  String keys;

  @Option(
      names = "--conns",
      paramLabel = "NAME=N[/I],...",
      description =
          "kernel schedulers: the current connection counts (active, optionally"
              + " /inactive); each key then asks which server a new connection would get right now")
  String conns;

  @Option(
      names = "--ramping",
      split = ",",
      paramLabel = "NAME=ELAPSED",
      description =
          "real servers in their slow start: NAME is ELAPSED (e.g. 3s, 500ms) into its"
              + " slow_start (shard: its rampup), and stays there; each pick follows the ramp as the"
              + " userspace scheduler applies it, and the ramp is shown (on standard error without"
              + " --stats)")
  List<String> ramping = new ArrayList<>();

  @Option(
      names = "--stats",
      description =
          "print each server's share instead of one line per key;"
              + " with --down, also how many keys moved compared with every server up")
  boolean stats;

  /** real_server_dns blocks resolved once: the answer is for the servers the DNS names now. */
  private io.fairway.config.model.Config withDns(io.fairway.config.model.Config c)
      throws InterruptedException {
    var r = io.fairway.daemon.discovery.OneShot.resolve(c, java.time.Duration.ofSeconds(5));
    r.warnings().forEach(w -> spec.commandLine().getErr().println("fairway: " + w));
    return r.config();
  }

  /**
   * A backup (a higher SRV priority of real_server_dns) is not picked while a server of a lower
   * tier is up, as the applier keeps it out of the table.
   */
  private static void standby(ServicePlan v, Balancer b, List<String> down) {
    for (var m : v.members()) {
      boolean lowerUp =
          v.members().stream().anyMatch(o -> o.tier() < m.tier() && !down.contains(o.name()));
      if (lowerUp) {
        b.setUp(m.name(), false);
      }
    }
  }

  private int fail(String message) {
    spec.commandLine().getErr().println("fairway: " + message);
    return Main.EXIT_USAGE;
  }

  /** A usage error: its message goes to standard error and {@code fairway pick} exits 2. */
  private static final class Refused extends Exception {
    private static final long serialVersionUID = 1L;

    Refused(String message) {
      super(message, null, false, false);
    }

    @Override
    public String getMessage() {
      return Objects.requireNonNull(super.getMessage(), "the constructor sets it");
    }
  }

  /**
   * The directors the keys are picked by: {@code allUp} only to count what {@code --down} moves.
   */
  private record Directors(ServicePlan service, Balancer picked, @Nullable Balancer allUp) {}

  /** What the keys got: per server its keys and all-up keys, and how many keys moved. */
  private static final class Tally {
    /** Why a pick has a count: pickAll starts one for every server and for none ({@code -}). */
    static final String COUNTED = "every server and - are counted";

    final Map<String, long[]> counts = new LinkedHashMap<>();
    long total;
    long moved;
  }

  @Override
  public Integer call() throws IOException {
    try {
      return pick();
    } catch (Refused e) {
      return fail(e.getMessage());
    }
  }

  private int pick() throws Refused {
    if (alt != null && alt < 0) {
      throw new Refused("--alt: must be 0 or more, got " + alt);
    }
    ShardHealthy mode = healthyMode();
    Directors d = directors(service(), mode);
    List<RampView> ramps = ramps(d);
    load(d);
    BufferedReader in = keyReader();
    PrintWriter out = spec.commandLine().getOut();
    Tally t = pickAll(in, d, out);
    if (stats) {
      printStats(out, d.service(), t.counts, t.total, d.allUp() != null, t.moved);
      ramps.forEach(r -> out.println(describe(r)));
    } else {
      ramps.forEach(r -> spec.commandLine().getErr().println(describe(r)));
    }
    out.flush();
    return 0;
  }

  private @Nullable ShardHealthy healthyMode() throws Refused {
    if (healthy == null) {
      return null;
    }
    try {
      return ShardHealthy.parse(healthy);
    } catch (IllegalArgumentException e) {
      throw new Refused("--healthy: " + e.getMessage());
    }
  }

  /** The {@code --vs} virtual server of the configuration, its DNS resolved once. */
  private ServicePlan service() throws Refused {
    Plan plan;
    try {
      plan = PlanBuilder.build(withDns(KeepalivedConfig.parse(config).config()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Refused("interrupted while resolving real_server_dns");
    } catch (ConfigException e) {
      throw new Refused(e.getMessage());
    } catch (PlanException e) {
      throw new Refused(e.errors().get(0));
    }
    ServicePlan v = plan.service(vs).orElse(null);
    if (v == null) {
      List<String> names = plan.services().stream().map(ServicePlan::name).toList();
      throw new Refused(
          "--vs: no virtual_server named '"
              + vs
              + "' in "
              + config
              + (names.isEmpty() ? "" : " (have: " + String.join(", ", names) + ")"));
    }
    return v;
  }

  /** The directors, {@code --down} servers down and backups standing by. */
  private Directors directors(ServicePlan v, @Nullable ShardHealthy mode) throws Refused {
    if (mode != null && !BalancerFactory.hasShard(v.selection())) {
      throw new Refused(
          "--healthy applies to lb_algo shard only; virtual_server "
              + v.name()
              + " uses "
              + v.selection().algorithm());
    }
    BalancerFactory.Options opts = new BalancerFactory.Options(seed, mode, alt == null ? -1 : alt);
    Balancer b;
    Balancer allUp = null;
    try {
      b = BalancerFactory.build(v, opts);
      if (stats && !down.isEmpty()) {
        allUp = BalancerFactory.build(v, opts);
      }
    } catch (BalanceException e) {
      throw new Refused(String.valueOf(e.getMessage()));
    }
    for (String d : down) {
      if (!b.setUp(d, false)) {
        throw new Refused(
            "--down: no real_server named '"
                + d
                + "' in virtual_server "
                + v.name()
                + " (have: "
                + String.join(", ", b.servers())
                + ")");
      }
    }
    standby(v, b, down);
    if (allUp != null) {
      standby(v, allUp, List.of());
    }
    return new Directors(v, b, allUp);
  }

  /** {@code --ramping}: each server held where its ramp is, in both directors. */
  private List<RampView> ramps(Directors d) throws Refused {
    List<RampView> ramps = new ArrayList<>();
    for (String r : ramping) {
      int eq = r.lastIndexOf('=');
      if (eq <= 0 || eq == r.length() - 1) {
        throw new Refused("--ramping: '" + r + "' is not NAME=ELAPSED (e.g. 10.0.0.2:80=3s)");
      }
      String server = r.substring(0, eq).strip();
      if (down.contains(server)) {
        throw new Refused("--ramping: " + server + " is also in --down");
      }
      try {
        java.time.Duration elapsed = Durations.parse(r.substring(eq + 1));
        ramps.add(d.picked().ramp(server, elapsed));
        if (d.allUp() != null) {
          d.allUp().ramp(server, elapsed);
        }
      } catch (IllegalArgumentException | BalanceException e) {
        throw new Refused("--ramping: " + server + ": " + e.getMessage());
      }
    }
    return ramps;
  }

  /** {@code --conns}: the connection counts a kernel scheduler's next pick sees. */
  private void load(Directors d) throws Refused {
    if (conns == null) {
      return;
    }
    try {
      LoadSnapshot snapshot = LoadSnapshot.parse(conns);
      if (!(d.picked() instanceof SchedulerBalancer sb)) {
        throw new Refused(
            "--conns applies to the kernel schedulers; virtual_server "
                + d.service().name()
                + " uses "
                + d.service().selection().algorithm());
      }
      sb.setLoad(snapshot);
      if (d.allUp() instanceof SchedulerBalancer all) {
        all.setLoad(snapshot);
      }
    } catch (IllegalArgumentException e) {
      throw new Refused(String.valueOf(e.getMessage()));
    }
  }

  private BufferedReader keyReader() throws Refused {
    try {
      InputStream is = keys.equals("-") ? main.in() : Files.newInputStream(Path.of(keys));
      return new BufferedReader(new InputStreamReader(is, StandardCharsets.UTF_8), 1 << 16);
    } catch (IOException | RuntimeException e) {
      throw new Refused("--keys " + keys + ": cannot read (" + reason(e) + ")");
    }
  }

  /**
   * Picks a server for every key: one line per key on {@code out}, or with {@code --stats} only
   * counted. What was printed before a bad key is flushed before the refusal.
   */
  private Tally pickAll(BufferedReader in, Directors d, PrintWriter out) throws Refused {
    String source = keys.equals("-") ? "<stdin>" : keys;
    Tally t = new Tally();
    for (String s : d.picked().servers()) {
      t.counts.put(s, new long[2]);
    }
    t.counts.put("-", new long[2]);
    StringBuilder buf = new StringBuilder(1 << 16);
    try (in) {
      String line;
      KeyLines lines = new KeyLines(in);
      while ((line = lines.next()) != null) {
        t.total++;
        String name;
        String base = null;
        try {
          name = stats ? d.picked().pick(line) : d.picked().route(line);
          if (d.allUp() != null) {
            base = d.allUp().pick(line);
          }
        } catch (IllegalArgumentException e) {
          out.write(buf.toString());
          out.flush();
          throw new Refused(source + ":" + t.total + ": " + e.getMessage());
        }
        count(t, d, name == null ? "-" : name, base, buf, out);
      }
    } catch (KeyLines.TooLong e) {
      out.write(buf.toString());
      out.flush();
      throw new Refused(source + ":" + (t.total + 1) + ": " + e.getMessage());
    } catch (IOException e) {
      throw new Refused("--keys " + keys + ": cannot read (" + reason(e) + ")");
    }
    out.write(buf.toString());
    return t;
  }

  /** One key's pick: counted with {@code --stats}, else one line of output. */
  private void count(
      Tally t,
      Directors d,
      String name,
      @Nullable String base,
      StringBuilder buf,
      PrintWriter out) {
    if (stats) {
      Objects.requireNonNull(t.counts.get(name), Tally.COUNTED)[0]++;
      if (d.allUp() != null) {
        String b = base == null ? "-" : base;
        Objects.requireNonNull(t.counts.get(b), Tally.COUNTED)[1]++;
        if (!b.equals(name)) {
          t.moved++;
        }
      }
    } else {
      buf.append(name).append('\n');
      if (buf.length() > 60_000) {
        out.write(buf.toString());
        buf.setLength(0);
      }
    }
  }

  private void printStats(
      PrintWriter out,
      ServicePlan v,
      Map<String, long[]> counts,
      long total,
      boolean compare,
      long moved) {
    int w = Math.max(6, counts.keySet().stream().mapToInt(String::length).max().orElse(6));
    out.printf(
        Locale.ROOT,
        "virtual_server %s (lb_algo %s), %d keys%s%n",
        v.name(),
        v.selection().algorithm(),
        total,
        down.isEmpty() ? "" : ", down: " + String.join(",", down));
    if (compare) {
      out.printf(
          Locale.ROOT,
          "%-" + w + "s %10s %8s %12s %8s%n",
          "server",
          "keys",
          "share",
          "all-up keys",
          "share");
    } else {
      out.printf(Locale.ROOT, "%-" + w + "s %10s %8s%n", "server", "keys", "share");
    }
    for (Map.Entry<String, long[]> e : counts.entrySet()) {
      long[] c = e.getValue();
      if (e.getKey().equals("-") && c[0] == 0 && c[1] == 0) {
        continue; // the "no server" row only when some key had none
      }
      if (compare) {
        out.printf(
            Locale.ROOT,
            "%-" + w + "s %10d %7.2f%% %12d %7.2f%%%n",
            e.getKey(),
            c[0],
            pct(c[0], total),
            c[1],
            pct(c[1], total));
      } else {
        out.printf(Locale.ROOT, "%-" + w + "s %10d %7.2f%%%n", e.getKey(), c[0], pct(c[0], total));
      }
    }
    if (compare) {
      out.printf(
          Locale.ROOT,
          "moved: %d of %d keys (%.2f%%) compared with every server up%n",
          moved,
          total,
          pct(moved, total));
    }
  }

  /** One ramping server: where its ramp is, and the share and weight it has there. */
  static String describe(RampView r) {
    String weight =
        BigDecimal.valueOf(r.weight())
            .multiply(BigDecimal.valueOf(r.fraction()))
            .setScale(2, RoundingMode.HALF_UP)
            .stripTrailingZeros()
            .toPlainString();
    String of = BigDecimal.valueOf(r.weight()).stripTrailingZeros().toPlainString();
    return String.format(
        Locale.ROOT,
        "ramping: %s at %s of %s: %.0f%% of its share (effective weight %s of %s%s)",
        r.server(),
        Durations.format(r.elapsed()),
        Durations.format(r.duration()),
        100 * r.fraction(),
        weight,
        of,
        r.kernelWeight() == 0 ? "" : "; on the kernel, table weight " + r.kernelWeight());
  }

  private static double pct(long n, long total) {
    return total == 0 ? 0 : 100.0 * n / total;
  }

  private static String reason(Exception e) {
    if (e instanceof java.nio.file.NoSuchFileException) {
      return "no such file";
    }
    if (e instanceof java.nio.file.AccessDeniedException) {
      return "permission denied";
    }
    if (e instanceof java.nio.file.FileSystemException f && f.getReason() != null) {
      return f.getReason();
    }
    return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
  }
}
