package io.fairway.cli;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code fairway reload}: what SIGHUP does, with the answer (ok, or refused and why). */
@Command(
    name = "reload",
    mixinStandardHelpOptions = true,
    description =
        "Reload the running fairway's configuration (as SIGHUP does) and print the result.")
public final class ReloadCommand implements Callable<Integer> {
  @Spec CommandSpec spec;
  @Mixin AdminOptions options;

  @Override
  public Integer call() {
    try {
      new AdminClient(options).post("/api/v1/reload", Map.of(), Duration.ofSeconds(60));
      spec.commandLine().getOut().println("reloaded");
      return 0;
    } catch (IllegalArgumentException e) {
      spec.commandLine().getErr().println("fairway: --admin: " + e.getMessage());
      return Main.EXIT_USAGE;
    } catch (AdminClient.Failure e) {
      spec.commandLine().getErr().println("fairway: reload " + e.getMessage());
      return 1;
    }
  }
}
