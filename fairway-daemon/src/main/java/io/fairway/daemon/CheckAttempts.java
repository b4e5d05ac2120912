package io.fairway.daemon;

import io.fairway.check.engine.CheckObserver;
import io.fairway.check.spec.CheckSpec;
import java.time.Clock;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * Each real server's last check attempt, whichever of its checkers ran last: what it saw (the code,
 * for an HTTP check), how long it took and when. The verdict (up/down and why) changes only when a
 * checker crosses its retry count; an operator also asks "is it still being checked, and what does
 * it answer now", which is this.
 */
public final class CheckAttempts implements CheckObserver {
  /**
   * One attempt.
   *
   * @param check the checker kind ({@code tcp}, {@code http}, ...)
   * @param outcome {@code success}, {@code failure} or {@code timeout}
   * @param observation what the checker saw ({@code "status 503, expected 200-299"})
   * @param durationMs how long the attempt took, milliseconds
   * @param at when it ended, ISO-8601
   */
  public record LastAttempt(
      String check, String outcome, String observation, double durationMs, String at) {}

  private final Clock clock;
  private final Map<String, Map<String, LastAttempt>> last = new ConcurrentHashMap<>();

  public CheckAttempts(Clock clock) {
    this.clock = clock == null ? Clock.systemUTC() : clock;
  }

  @Override
  public void observed(
      String virtualServer, String realServer, CheckSpec spec, Outcome outcome, long nanos) {
    record(virtualServer, realServer, kind(spec), outcome, nanos, null);
  }

  @Override
  public Bound bind(String virtualServer, String realServer, CheckSpec spec) {
    String kind = kind(spec);
    Map<String, LastAttempt> byServer =
        last.computeIfAbsent(virtualServer, k -> new ConcurrentHashMap<>());
    return new Bound() {
      @Override
      public void observed(Outcome outcome, long nanos) {
        byServer.put(realServer, attempt(kind, outcome, nanos, null));
      }

      @Override
      public void observed(Outcome outcome, long nanos, String observation) {
        byServer.put(realServer, attempt(kind, outcome, nanos, observation));
      }
    };
  }

  private void record(
      String vs,
      String rs,
      String kind,
      Outcome outcome,
      long nanos,
      @Nullable String observation) {
    last.computeIfAbsent(vs, k -> new ConcurrentHashMap<>())
        .put(rs, attempt(kind, outcome, nanos, observation));
  }

  private LastAttempt attempt(
      String kind, Outcome outcome, long nanos, @Nullable String observation) {
    return new LastAttempt(
        kind,
        outcome.name().toLowerCase(java.util.Locale.ROOT),
        observation == null ? "" : observation,
        Math.round(nanos / 1e4) / 100.0,
        clock.instant().toString());
  }

  /** The last attempt on a real server, or null before its first. */
  public @Nullable LastAttempt get(String virtualServer, String realServer) {
    Map<String, LastAttempt> m = last.get(virtualServer);
    return m == null ? null : m.get(realServer);
  }

  /** Forgets virtual servers that are no longer configured. */
  public void retain(Set<String> virtualServers) {
    last.keySet().retainAll(virtualServers);
  }

  /**
   * A checker's kind as the status view and the metrics label it: {@code TcpCheckSpec} is {@code
   * tcp}.
   */
  public static String kind(CheckSpec spec) {
    String n = spec.getClass().getSimpleName();
    return (n.endsWith("CheckSpec") ? n.substring(0, n.length() - "CheckSpec".length()) : n)
        .toLowerCase(java.util.Locale.ROOT);
  }
}
