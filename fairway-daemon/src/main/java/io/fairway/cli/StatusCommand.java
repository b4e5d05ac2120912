package io.fairway.cli;

import java.net.InetSocketAddress;
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
          + " instances, sync groups and counters as JSON (GET /api/v1/vrrp)."
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
      String body = client.get(vrrp ? "/api/v1/vrrp" : json ? "/api/v1/services" : "/status");
      spec.commandLine().getOut().print(json || vrrp ? body + "\n" : body);
      spec.commandLine().getOut().flush();
      return 0;
    } catch (AdminClient.Failure e) {
      spec.commandLine().getErr().println("fairway: " + e.getMessage());
      return 1;
    }
  }

  /** {@code HOST:PORT} or {@code [V6]:PORT}, numeric and loopback. */
  static InetSocketAddress parseAddress(String s) {
    return AdminClient.parseAddress(s, false);
  }
}
