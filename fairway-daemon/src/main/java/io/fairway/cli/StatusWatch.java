package io.fairway.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.fairway.daemon.Json;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.temporal.ChronoUnit;
import org.jspecify.annotations.Nullable;

/**
 * The read loop behind {@code --rates} (one frame from two reads a second apart) and {@code
 * --watch} (a frame every interval, each drawn over the last). Keeps only the previous read, so a
 * watch left running for days holds no more than two answers.
 */
final class StatusWatch {
  private final AdminClient client;
  private final PrintWriter out;

  StatusWatch(AdminClient client, PrintWriter out) {
    this.client = client;
    this.out = out;
  }

  /**
   * Prints the frames.
   *
   * @param every null: one {@code --rates} frame; else the {@code --watch} interval
   * @param frames with {@code --watch}: how many frames, null until interrupted
   * @return the exit code
   */
  int run(@Nullable Duration every, @Nullable Integer frames)
      throws AdminClient.Failure, InterruptedException {
    Read previous = read();
    if (every == null) {
      Thread.sleep(1000); // the window of the rates: the pacing of the command, not a wait
      Read now = read();
      out.print(frame(previous, now, "fairway status --rates"));
      out.flush();
      return 0;
    }
    String title = "Every " + every.toMillis() / 1000.0 + "s: fairway status --watch";
    out.print(StatusCommand.CLEAR + frame(null, previous, title));
    out.flush();
    for (int n = 1; frames == null || n < frames; n++) {
      Thread.sleep(every.toMillis());
      Read now = read();
      out.print(StatusCommand.CLEAR + frame(previous, now, title));
      out.flush();
      previous = now;
    }
    return 0;
  }

  private static String frame(@Nullable Read before, Read after, String title) {
    Duration elapsed =
        before == null ? Duration.ZERO : Duration.ofNanos(after.nanos() - before.nanos());
    return title
        + (before == null ? "" : " (rates over " + elapsed.toMillis() / 1000.0 + " s)")
        + "   "
        + LocalTime.now(java.time.ZoneId.systemDefault()).truncatedTo(ChronoUnit.SECONDS)
        + "\n\n"
        + StatusRates.render(
            before == null ? null : before.body(), after.body(), elapsed, after.at());
  }

  private record Read(JsonNode body, long nanos, Instant at) {}

  private Read read() throws AdminClient.Failure {
    String body = client.get("/api/v1/services");
    long nanos = System.nanoTime();
    try {
      return new Read(Json.mapper().readTree(body), nanos, Instant.now());
    } catch (JsonProcessingException e) {
      throw new AdminClient.Failure(
          "GET /api/v1/services: not JSON: "
              + e.getOriginalMessage().lines().findFirst().orElse(""));
    }
  }
}
