package io.fairway.daemon.discovery;

import io.fairway.config.model.Config;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Resolves every {@code real_server_dns} block of a model once, for commands that answer for the
 * servers of this moment ({@code fairway pick}) rather than follow them.
 */
public final class OneShot {
  private OneShot() {}

  /**
   * The model with its blocks' servers, and a line for each block that found none.
   *
   * @param config the model read from the file
   * @param warnings one line for each block that found no server (FILE:LINE first)
   */
  public record Resolved(Config config, List<String> warnings) {
    public Resolved {
      warnings = List.copyOf(warnings);
    }
  }

  /**
   * Resolves the configuration's DNS-discovered servers once.
   *
   * @param timeout how long one query may take; the whole resolution is bounded by a multiple of it
   */
  public static Resolved resolve(Config config, Duration timeout) throws InterruptedException {
    if (config.virtualServers().stream().allMatch(vs -> vs.discovery().isEmpty())) {
      return new Resolved(config, List.of());
    }
    try (DnsResolver resolver = new DnsResolver(timeout)) {
      Discovery d = new Discovery(resolver, Clock.systemUTC());
      List<String> warnings = new ArrayList<>();
      try {
        d.refresh(config).get(timeout.toMillis() * 10, TimeUnit.MILLISECONDS);
      } catch (ExecutionException | TimeoutException e) {
        warnings.add("real_server_dns: resolution did not finish: " + e);
      }
      Config expanded = d.expand(config);
      for (Discovery.BlockState s : d.states()) {
        if (s.members().isEmpty()) {
          String[] k = s.key().split(" ");
          warnings.add(
              s.location()
                  + ": real_server_dns "
                  + k[k.length - 2]
                  + ": no server ("
                  + DnsStatus.wire(s.lastAnswer().outcome())
                  + (s.lastAnswer().error().isEmpty() ? "" : ": " + s.lastAnswer().error())
                  + ")");
        }
      }
      return new Resolved(expanded, warnings);
    }
  }
}
