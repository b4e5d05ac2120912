package io.fairway.config.model;

import java.time.Duration;

/**
 * A checker's effective timing, resolved as keepalived does: checker block, else real_server, else
 * virtual_server, else the checker type's default.
 *
 * @param delayLoop interval between checks (default 60 s)
 * @param connectTimeout how long a connection attempt may take (default 5 s)
 * @param retry failed attempts tolerated before the checker goes down (default 1; DNS 3; MISC 0)
 * @param delayBeforeRetry interval between retries (default 1 s; HTTP/SSL 3 s; DNS = delayLoop)
 * @param warmup upper bound of the random delay before the first check (default = delayLoop)
 * @param alpha true if the checker starts down (the real server is added only after a success)
 * @param logAllFailures log every failure, not only state changes
 * @param rise consecutive successes a down checker needs to come up (Fairway extension, HAProxy's
 *     {@code rise}; keepalived's behaviour is 1). HAProxy's {@code fall N} is parsed into {@code
 *     retry N-1}, so it needs no field of its own.
 */
public record CheckerTiming(
    Duration delayLoop,
    Duration connectTimeout,
    int retry,
    Duration delayBeforeRetry,
    Duration warmup,
    boolean alpha,
    boolean logAllFailures,
    int rise) {
  public CheckerTiming {
    if (rise < 1) {
      throw new IllegalArgumentException("rise must be >= 1, got " + rise);
    }
  }
}
