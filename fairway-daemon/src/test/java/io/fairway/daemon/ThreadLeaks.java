package io.fairway.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Finds threads a piece of code started and left running. A left-over thread is what kept the test
 * fork alive (or, holding stdin, kept it from hearing Maven say goodbye) for 30 s after the tests
 * ended; in production it is a daemon that does not stop.
 */
public final class ThreadLeaks {
  /**
   * Threads the JDK or a library starts once for the whole process, whoever needs them first, and
   * keeps after the caller is gone: not the caller's to stop.
   */
  private static final Set<String> PROCESS_WIDE =
      Set.of(
          "process reaper", // the JDK's pool behind Process.onExit and waitFor, idle threads linger
          // 60 s
          "JNA Cleaner", // JNA's reference cleaner
          "Attach Listener", // jstack and friends
          "Common-Cleaner",
          // prometheus-metrics-core's static Scheduler, started by the first metric that needs it
          "prometheus-metrics-scheduler-0");

  private ThreadLeaks() {}

  /** The threads alive now. */
  public static Set<Thread> snapshot() {
    return Set.copyOf(Thread.getAllStackTraces().keySet());
  }

  /**
   * Waits (a shutdown may finish asynchronously) until every thread started since {@code before}
   * has ended, daemon or not; fails naming the survivors and what they are doing.
   */
  public static void assertAllEnded(Set<Thread> before, Duration within) {
    await()
        .atMost(within)
        .pollInSameThread()
        .pollInterval(Duration.ofMillis(50))
        .untilAsserted(
            () -> assertThat(describe(startedSince(before))).as("threads still running").isEmpty());
  }

  static Map<Thread, StackTraceElement[]> startedSince(Set<Thread> before) {
    return Thread.getAllStackTraces().entrySet().stream()
        .filter(e -> !before.contains(e.getKey()) && e.getKey().isAlive())
        .filter(e -> !PROCESS_WIDE.contains(e.getKey().getName()))
        .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
  }

  private static Set<String> describe(Map<Thread, StackTraceElement[]> threads) {
    return threads.entrySet().stream()
        .map(
            e ->
                e.getKey().getName()
                    + (e.getKey().isDaemon() ? " (daemon)" : "")
                    + " at "
                    + Arrays.stream(e.getValue())
                        .limit(6)
                        .map(String::valueOf)
                        .collect(Collectors.joining(" <- ")))
        .collect(Collectors.toSet());
  }
}
