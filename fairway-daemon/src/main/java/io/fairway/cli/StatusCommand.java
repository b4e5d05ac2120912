package io.fairway.cli;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code fairway status}: the running table like {@code ipvsadm -Ln}, with health and reasons. */
@Command(
    name = "status",
    mixinStandardHelpOptions = true,
    description = {
      "Print the table of a running 'fairway run' like ipvsadm -Ln.",
      "Each real server shows its health and the reason for it (the checker and what it saw).",
      "--json prints the runtime API's view (GET /api/v1/services) instead; --vrrp the VRRP"
          + " instances, sync groups and counters as JSON (GET /api/v1/vrrp).",
      "--rates prints the status page's per-server columns (rates, errors, p99, last check) from"
          + " two reads a second apart; --watch redraws them in place every SECONDS (default 2)"
          + " until Ctrl-C, or --count frames."
    })
public final class StatusCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Mixin AdminOptions options;

  @Option(
      names = "--json",
      description =
          "every virtual and real server as JSON (state, admin state, weights, connections, last check)")
  boolean json;

  @Option(
      names = "--vrrp",
      description =
          "the VRRP instances (state, priority, master, since, adverts, transitions), sync groups and error counters as JSON")
  boolean vrrp;

  @Option(
      names = "--rates",
      description =
          "per real server: state and for how long, weight, active, conn/s, req/s, errors, err/s,"
              + " retries, bytes in/out, p99, last check; rates over one second")
  boolean rates;

  @Option(
      names = "--watch",
      arity = "0..1",
      fallbackValue = "2",
      paramLabel = "SECONDS",
      description =
          "as --rates, redrawn in place every SECONDS (0.5 to 3600, default 2) until Ctrl-C;"
              + " needs a terminal unless --count is given")
  Double watch;

  @Option(
      names = "--count",
      paramLabel = "N",
      description = "with --watch: stop after N frames (1 to 100000); allowed without a terminal")
  Integer count;

  /** Clear the screen and home the cursor, as watch(1) redraws. */
  static final String CLEAR = "\033[H\033[2J";

  @Override
  public Integer call() {
    AdminClient client;
    try {
      client = new AdminClient(options);
    } catch (IllegalArgumentException e) {
      spec.commandLine().getErr().println("fairway: --admin: " + e.getMessage());
      return Main.EXIT_USAGE;
    }
    if (watch != null || rates || count != null) {
      return rates(client);
    }
    try {
      String body = client.get(vrrp ? "/api/v1/vrrp" : json ? "/api/v1/services" : "/status");
      spec.commandLine().getOut().print(json || vrrp ? body + "\n" : body);
      spec.commandLine().getOut().flush();
      return 0;
    } catch (AdminClient.Failure e) {
      spec.commandLine().getErr().println("fairway: " + e.getMessage());
      return 1;
    }
  }

  private Integer rates(AdminClient client) {
    var err = spec.commandLine().getErr();
    if (json || vrrp) {
      err.println("fairway: --rates and --watch print text; they do not go with --json or --vrrp");
      return Main.EXIT_USAGE;
    }
    if (count != null && watch == null) {
      err.println("fairway: --count goes with --watch");
      return Main.EXIT_USAGE;
    }
    if (watch != null && !(watch >= 0.5 && watch <= 3600)) {
      err.println("fairway: --watch: SECONDS must be from 0.5 to 3600, not " + watch);
      return Main.EXIT_USAGE;
    }
    if (count != null && (count < 1 || count > 100_000)) {
      err.println("fairway: --count: N must be from 1 to 100000, not " + count);
      return Main.EXIT_USAGE;
    }
    if (watch != null && count == null && !onTerminal()) {
      // Without an end and without a screen to redraw, the output would grow without bound.
      err.println(
          "fairway: --watch redraws a terminal and runs until Ctrl-C; not on a terminal, give"
              + " --count N (or use --rates for one frame)");
      return Main.EXIT_USAGE;
    }
    try {
      return new StatusWatch(client, spec.commandLine().getOut())
          .run(watch == null ? null : Duration.ofMillis(Math.round(watch * 1000)), count);
    } catch (AdminClient.Failure e) {
      err.println("fairway: " + e.getMessage());
      return 1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 130;
    }
  }

  /** {@code HOST:PORT} or {@code [V6]:PORT}, numeric and loopback. */
  static InetSocketAddress parseAddress(String s) {
    return AdminClient.parseAddress(s, false);
  }

  /** Whether standard input and output are a terminal. */
  // The release is 17, where a null console means exactly that (Console.isTerminal is JDK 22's).
  @SuppressWarnings("SystemConsoleNull")
  private static boolean onTerminal() {
    return System.console() != null;
  }
}
