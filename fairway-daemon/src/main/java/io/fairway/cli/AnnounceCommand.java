package io.fairway.cli;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code fairway announce on|off}: withdraw or restore this node's BGP routes for maintenance. */
@Command(
    name = "announce",
    mixinStandardHelpOptions = true,
    description = {
      "Withdraw (off) or restore (on) the routes a running 'fairway run' keeps in its"
          + " announce_table, so the routers move new flows away from this node (or back).",
      "The setting is kept across reloads (SIGHUP), not across a restart. Without an argument,"
          + " prints the state as JSON (GET /api/v1/announce)."
    })
public final class AnnounceCommand implements Callable<Integer> {
  @Spec CommandSpec spec;
  @Mixin AdminOptions options;

  @Parameters(
      index = "0",
      arity = "0..1",
      paramLabel = "on|off",
      description =
          "on: announce while the services can serve (the default at start); off: withdraw")
  String action;

  @Override
  public Integer call() {
    if (action != null && !action.equals("on") && !action.equals("off")) {
      spec.commandLine()
          .getErr()
          .println("fairway: announce: expected on or off, got '" + action + "'");
      return Main.EXIT_USAGE;
    }
    AdminClient client;
    try {
      client = new AdminClient(options);
    } catch (IllegalArgumentException e) {
      spec.commandLine().getErr().println("fairway: --admin: " + e.getMessage());
      return Main.EXIT_USAGE;
    }
    try {
      String body =
          action == null
              ? client.get("/api/v1/announce")
              : client.post("/api/v1/announce/" + action, Map.of(), Duration.ofSeconds(30));
      spec.commandLine().getOut().println(body);
      return 0;
    } catch (AdminClient.Failure e) {
      spec.commandLine().getErr().println("fairway: announce " + e.getMessage());
      return 1;
    }
  }
}
