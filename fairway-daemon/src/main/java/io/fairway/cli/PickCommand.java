package io.fairway.cli;

import io.fairway.config.ConfigException;
import io.fairway.config.KeepalivedConfig;
import io.fairway.daemon.admin.Durations;
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
import java.util.concurrent.Callable;
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

  @Override
  public Integer call() throws IOException {
    if (alt != null && alt < 0) {
      return fail("--alt: must be 0 or more, got " + alt);
    }
    ShardHealthy mode = null;
    if (healthy != null) {
      try {
        mode = ShardHealthy.parse(healthy);
      } catch (IllegalArgumentException e) {
        return fail("--healthy: " + e.getMessage());
      }
    }
    Plan plan;
    try {
      plan = PlanBuilder.build(withDns(KeepalivedConfig.parse(config).config()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return fail("interrupted while resolving real_server_dns");
    } catch (ConfigException e) {
      return fail(e.getMessage());
    } catch (PlanException e) {
      return fail(e.errors().get(0));
    }
    ServicePlan v = plan.service(vs).orElse(null);
    if (v == null) {
      List<String> names = plan.services().stream().map(ServicePlan::name).toList();
      return fail(
          "--vs: no virtual_server named '"
              + vs
              + "' in "
              + config
              + (names.isEmpty() ? "" : " (have: " + String.join(", ", names) + ")"));
    }
    if (mode != null && !BalancerFactory.hasShard(v.selection())) {
      return fail(
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
      return fail(e.getMessage());
    }
    for (String d : down) {
      if (!b.setUp(d, false)) {
        return fail(
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
    List<RampView> ramps = new ArrayList<>();
    for (String r : ramping) {
      int eq = r.lastIndexOf('=');
      if (eq <= 0 || eq == r.length() - 1) {
        return fail("--ramping: '" + r + "' is not NAME=ELAPSED (e.g. 10.0.0.2:80=3s)");
      }
      String server = r.substring(0, eq).strip();
      if (down.contains(server)) {
        return fail("--ramping: " + server + " is also in --down");
      }
      try {
        java.time.Duration elapsed = Durations.parse(r.substring(eq + 1));
        ramps.add(b.ramp(server, elapsed));
        if (allUp != null) {
          allUp.ramp(server, elapsed);
        }
      } catch (IllegalArgumentException | BalanceException e) {
        return fail("--ramping: " + server + ": " + e.getMessage());
      }
    }
    if (conns != null) {
      try {
        LoadSnapshot snapshot = LoadSnapshot.parse(conns);
        if (!(b instanceof SchedulerBalancer sb)) {
          return fail(
              "--conns applies to the kernel schedulers; virtual_server "
                  + v.name()
                  + " uses "
                  + v.selection().algorithm());
        }
        sb.setLoad(snapshot);
        if (allUp instanceof SchedulerBalancer all) {
          all.setLoad(snapshot);
        }
      } catch (IllegalArgumentException e) {
        return fail(e.getMessage());
      }
    }
    BufferedReader in;
    String source = keys.equals("-") ? "<stdin>" : keys;
    try {
      InputStream is = keys.equals("-") ? main.in() : Files.newInputStream(Path.of(keys));
      in = new BufferedReader(new InputStreamReader(is, StandardCharsets.UTF_8), 1 << 16);
    } catch (IOException | RuntimeException e) {
      return fail("--keys " + keys + ": cannot read (" + reason(e) + ")");
    }
    PrintWriter out = spec.commandLine().getOut();
    Map<String, long[]> counts = new LinkedHashMap<>();
    for (String s : b.servers()) {
      counts.put(s, new long[2]);
    }
    counts.put("-", new long[2]);
    long total = 0;
    long moved = 0;
    StringBuilder buf = new StringBuilder(1 << 16);
    try (in) {
      String line;
      KeyLines lines = new KeyLines(in);
      while ((line = lines.next()) != null) {
        total++;
        String name;
        String base = null;
        try {
          name = stats ? b.pick(line) : b.route(line);
          if (allUp != null) {
            base = allUp.pick(line);
          }
        } catch (IllegalArgumentException e) {
          out.write(buf.toString());
          out.flush();
          return fail(source + ":" + total + ": " + e.getMessage());
        }
        name = name == null ? "-" : name;
        if (stats) {
          counts.get(name)[0]++;
          if (allUp != null) {
            base = base == null ? "-" : base;
            counts.get(base)[1]++;
            if (!base.equals(name)) {
              moved++;
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
    } catch (KeyLines.TooLong e) {
      out.write(buf.toString());
      out.flush();
      return fail(source + ":" + (total + 1) + ": " + e.getMessage());
    } catch (IOException e) {
      return fail("--keys " + keys + ": cannot read (" + reason(e) + ")");
    }
    out.write(buf.toString());
    if (stats) {
      printStats(out, v, counts, total, allUp != null, moved);
      ramps.forEach(r -> out.println(describe(r)));
    } else {
      ramps.forEach(r -> spec.commandLine().getErr().println(describe(r)));
    }
    out.flush();
    return 0;
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
