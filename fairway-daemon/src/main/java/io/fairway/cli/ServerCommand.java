package io.fairway.cli;

import io.fairway.daemon.Durations;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code fairway server drain|maint|ready|weight}: an operator's setting on one real server of a
 * running fairway, through the admin listener's API.
 */
@Command(
    name = "server",
    mixinStandardHelpOptions = true,
    description = "Drain, maintain, restore or re-weight a real server of a running 'fairway run'.",
    subcommands = {
      ServerCommand.Drain.class,
      ServerCommand.Maint.class,
      ServerCommand.Ready.class,
      ServerCommand.Weight.class
    })
public final class ServerCommand implements Runnable {
  @Spec CommandSpec spec;

  @Override
  public void run() {
    throw new picocli.CommandLine.ParameterException(
        spec.commandLine(), "expected one of drain, maint, ready, weight");
  }

  /** What every server subcommand has. */
  abstract static class Base implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin AdminOptions options;

    @Parameters(
        index = "0",
        paramLabel = "VS",
        description = "the virtual server's name (default IP:PORT)")
    String vs;

    @Parameters(
        index = "1",
        paramLabel = "RS",
        description = "the real server's name (default IP:PORT)")
    String rs;

    abstract String action();

    abstract Map<String, Object> body();

    Duration requestTimeout() {
      return Duration.ofSeconds(30);
    }

    @Override
    public Integer call() {
      AdminClient client;
      try {
        client = new AdminClient(options);
      } catch (IllegalArgumentException e) {
        spec.commandLine().getErr().println("fairway: --admin: " + e.getMessage());
        return Main.EXIT_USAGE;
      }
      try {
        Map<String, Object> body = body();
        client.post(
            "/api/v1/services/"
                + AdminClient.segment(vs)
                + "/servers/"
                + AdminClient.segment(rs)
                + "/"
                + action(),
            body,
            requestTimeout());
        spec.commandLine().getOut().println(vs + " " + rs + ": " + describe(body));
        return 0;
      } catch (AdminClient.Failure e) {
        spec.commandLine().getErr().println("fairway: " + e.getMessage());
        return 1;
      }
    }

    String describe(Map<String, Object> body) {
      return String.valueOf(body.getOrDefault("state", "weight " + body.get("weight")));
    }
  }

  /** drain / maint / ready. */
  abstract static class StateBase extends Base {
    @Override
    String action() {
      return "state";
    }

    abstract String state();

    @Override
    Map<String, Object> body() {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("state", state());
      return m;
    }
  }

  @Command(
      name = "drain",
      mixinStandardHelpOptions = true,
      description =
          "Weight 0: established connections continue, no new ones. --wait answers when none is left.")
  static final class Drain extends StateBase {
    @Option(
        names = "--wait",
        description = "wait until the server has no active connection (exit 1 at the timeout)")
    boolean waitIdle;

    @Option(
        names = "--timeout",
        paramLabel = "D",
        defaultValue = "30s",
        description = "how long --wait waits, e.g. 30s, 500ms, 2m (default ${DEFAULT-VALUE})")
    String timeout;

    @Override
    String state() {
      return "drain";
    }

    @Override
    Map<String, Object> body() {
      Map<String, Object> m = super.body();
      if (waitIdle) {
        Durations.parse(timeout);
        m.put("wait", true);
        m.put("timeout", timeout);
      }
      return m;
    }

    @Override
    Duration requestTimeout() {
      return waitIdle ? Durations.parse(timeout).plusSeconds(10) : super.requestTimeout();
    }

    @Override
    public Integer call() {
      try {
        Durations.parse(timeout);
      } catch (IllegalArgumentException e) {
        spec.commandLine().getErr().println("fairway: --timeout: " + e.getMessage());
        return Main.EXIT_USAGE;
      }
      return super.call();
    }

    @Override
    String describe(Map<String, Object> body) {
      return waitIdle ? "drained, no active connection left" : "drain";
    }
  }

  @Command(
      name = "maint",
      mixinStandardHelpOptions = true,
      description =
          "Out of the table as a failed check takes it out (without inhibit); the checkers keep running.")
  static final class Maint extends StateBase {
    @Override
    String state() {
      return "maint";
    }
  }

  @Command(
      name = "ready",
      mixinStandardHelpOptions = true,
      description = "Back to what the checkers say (clears drain, maint and an admin weight).")
  static final class Ready extends StateBase {
    @Override
    String state() {
      return "ready";
    }
  }

  @Command(
      name = "weight",
      mixinStandardHelpOptions = true,
      description =
          "Set the effective weight until 'ready' or a reload that changes the configured weight.")
  static final class Weight extends Base {
    @Parameters(index = "2", paramLabel = "N", description = "the weight, >= 0")
    int weight;

    @Override
    String action() {
      return "weight";
    }

    @Override
    Map<String, Object> body() {
      return Map.of("weight", weight);
    }

    @Override
    public Integer call() {
      if (weight < 0) {
        spec.commandLine().getErr().println("fairway: N: the weight must be >= 0, got " + weight);
        return Main.EXIT_USAGE;
      }
      return super.call();
    }
  }
}
