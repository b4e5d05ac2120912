package io.fairway.cli;

import static org.awaitility.Awaitility.await;

import io.fairway.cli.VrrpRouterProcess.Kind;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * The set-up of the VRRP tests that run routers in two fresh namespaces per test ({@link Netns}):
 * the namespaces, the routers a test starts in them, an optional {@link Monitor} of the virtual
 * address, all of it ended after the test and the routers' logs printed. A base class rather than a
 * field of the tests, so that their scenarios keep reading {@code net.a}, {@code dir} and {@code
 * start(...)} as before.
 */
abstract class VrrpLab {
  @TempDir Path dir;
  Netns net;
  final List<VrrpRouterProcess> routers = new ArrayList<>();

  /** Set by a test that checks overlaps, before it reads it; stopped after it. */
  @SuppressWarnings("NullAway.Init")
  Monitor monitor;

  @BeforeAll
  static void available() {
    Netns.assumeAvailable();
  }

  @BeforeEach
  void network() throws Exception {
    net = Netns.create();
  }

  @AfterEach
  void cleanUp() throws Exception {
    if (monitor != null) {
      monitor.stop();
    }
    for (VrrpRouterProcess r : routers) {
      r.close();
    }
    net.close();
    for (VrrpRouterProcess r : routers) {
      System.out.println("--- " + r.ns + " " + r.kind + "\n" + r.logText());
    }
  }

  /** Starts a router in {@code ns} with {@code config} as its whole file, closed after the test. */
  VrrpRouterProcess start(Kind kind, String ns, String config, String... fairwayArgs)
      throws Exception {
    return start(kind, ns, config, List.of(), fairwayArgs);
  }

  /**
   * @param prefix a command the router runs under inside the namespace, or empty (see {@link
   *     VrrpRouterProcess#start(Kind, String, Path, String, List, String...)})
   */
  VrrpRouterProcess start(
      Kind kind, String ns, String config, List<String> prefix, String... fairwayArgs)
      throws Exception {
    VrrpRouterProcess r = VrrpRouterProcess.start(kind, ns, dir, config, prefix, fairwayArgs);
    routers.add(r);
    return r;
  }

  /** A notify script that appends its arguments to {@code out}. */
  Path notifyScript(String name, Path out) throws Exception {
    Path script = dir.resolve(name + ".sh");
    Files.writeString(script, "#!/bin/sh\necho \"$*\" >> " + out + "\n");
    script.toFile().setExecutable(true);
    return script;
  }

  /**
   * Waits until {@code r} runs its instances (see {@link VrrpRouterProcess#inAState()}), and stops
   * at once with its log if it exits instead. The bound is a precondition's, not a claim: a JVM
   * starting on a machine shared with another suite needs seconds to get there.
   */
  static void awaitRunning(VrrpRouterProcess r) {
    await()
        .atMost(VrrpInteropTest.START)
        .pollInterval(Duration.ofMillis(20))
        .until(
            () -> {
              if (!r.alive()) {
                throw new AssertionError(
                    r.kind + " in " + r.ns + " exited before it ran:\n" + r.logText());
              }
              return r.inAState();
            });
  }

  static void awaitHolds(String ns, String vip, Duration within) {
    // Netns.holds reads what the kernel reported: a 5 ms poll costs nothing.
    await().atMost(within).pollInterval(Duration.ofMillis(5)).until(() -> Netns.holds(ns, vip));
  }

  static void awaitReleased(String ns, String vip, Duration within) {
    await().atMost(within).pollInterval(Duration.ofMillis(5)).until(() -> !Netns.holds(ns, vip));
  }

  /**
   * Records the longest time both namespaces held the address, from the kernel's address
   * notifications: every change is seen when it happens, not at the next sample.
   */
  static final class Monitor {
    private final Netns net;
    private final String vip;
    private final Runnable listener = this::changed;
    private long since = -1;
    private long worst;

    private Monitor(Netns net, String vip) {
      this.net = net;
      this.vip = vip;
      Netns.listen(listener);
      changed();
    }

    static Monitor start(Netns net, String vip) {
      return new Monitor(net, vip);
    }

    private synchronized void changed() {
      boolean both = Netns.holds(net.a, vip) && Netns.holds(net.b, vip);
      long now = System.nanoTime();
      if (both && since < 0) {
        since = now;
      } else if (!both && since >= 0) {
        worst = Math.max(worst, now - since);
        since = -1;
      }
    }

    synchronized Duration worstOverlap() {
      long ongoing = since >= 0 ? System.nanoTime() - since : 0;
      return Duration.ofNanos(Math.max(worst, ongoing));
    }

    void stop() {
      Netns.unlisten(listener);
    }
  }
}
