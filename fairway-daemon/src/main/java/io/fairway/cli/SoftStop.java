package io.fairway.cli;

import io.fairway.proxy.plane.ProxyTable;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The userspace plane's stop, as HAProxy's soft-stop and Envoy's drain do it: stop accepting, let
 * what is in flight finish within a grace period, then go on with keepalived's stop (remove what
 * Fairway installed). The kernel plane has no connections of Fairway's to wait for: IPVS keeps
 * forwarding established connections by itself until the services are removed, as with keepalived.
 */
final class SoftStop {
  private static final Logger LOG = LoggerFactory.getLogger(SoftStop.class);
  private static final long POLL_MS = 100;

  private SoftStop() {}

  /**
   * Drains {@code table}: returns when no client connection is left, the grace period is over, or
   * {@code now} is counted down (a second SIGTERM).
   */
  static void drain(ProxyTable table, Duration grace, CountDownLatch now)
      throws InterruptedException {
    int open = table.stopAccepting();
    if (open == 0) {
      LOG.info("soft stop: no connection in flight; stopping");
      return;
    }
    LOG.info(
        "soft stop: {} connection(s) in flight, waiting up to {} s for them (SIGTERM again to stop now)",
        open,
        grace.toMillis() / 1000.0);
    long deadline = System.nanoTime() + grace.toNanos();
    while (table.openConnections() > 0) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        LOG.warn("soft stop: grace period over; closing {} connection(s)", table.openConnections());
        return;
      }
      if (now.await(
          Math.min(TimeUnit.NANOSECONDS.toMillis(left) + 1, POLL_MS), TimeUnit.MILLISECONDS)) {
        LOG.warn("soft stop: second signal; closing {} connection(s) now", table.openConnections());
        return;
      }
    }
    LOG.info("soft stop: every connection finished; stopping");
  }
}
