package io.fairway.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.fairway.daemon.Json;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.Iterator;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code fairway events}: follows the event stream, one line per event. */
@Command(
    name = "events",
    mixinStandardHelpOptions = true,
    description = {
      "Follow a running fairway's events: verdicts, weights, quorum, sorry server, reloads, admin actions.",
      "One line each: TIME KIND VS [RS]: REASON. Ends when fairway stops (exit 1) or after --count events."
    })
public final class EventsCommand implements Callable<Integer> {
  @Spec CommandSpec spec;
  @Mixin AdminOptions options;

  @Option(names = "--json", description = "print each event's JSON as sent")
  boolean json;

  @Option(
      names = "--count",
      paramLabel = "N",
      defaultValue = "0",
      description = "stop after N events (0: follow)")
  int count;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    try (Stream<String> lines = new AdminClient(options).lines("/api/v1/events")) {
      int seen = 0;
      Iterator<String> it = lines.iterator();
      while (it.hasNext()) {
        String l = it.next();
        if (!l.startsWith("data: ")) {
          continue;
        }
        out.println(json ? l.substring(6) : line(l.substring(6)));
        out.flush();
        if (count > 0 && ++seen >= count) {
          return 0;
        }
      }
      spec.commandLine().getErr().println("fairway: the event stream ended (fairway stopped?)");
      return 1;
    } catch (IllegalArgumentException e) {
      spec.commandLine().getErr().println("fairway: --admin: " + e.getMessage());
      return Main.EXIT_USAGE;
    } catch (AdminClient.Failure e) {
      spec.commandLine().getErr().println("fairway: " + e.getMessage());
      return 1;
    }
  }

  static String line(String json) {
    try {
      JsonNode n = Json.mapper().readTree(json);
      StringBuilder b =
          new StringBuilder()
              .append(n.path("time").asText())
              .append(' ')
              .append(n.path("kind").asText());
      if (n.hasNonNull("virtual_server")) {
        b.append(' ').append(n.get("virtual_server").asText());
      }
      if (n.hasNonNull("real_server")) {
        b.append(' ').append(n.get("real_server").asText());
      }
      return b.append(": ").append(n.path("reason").asText()).toString();
    } catch (IOException e) {
      return json;
    }
  }
}
