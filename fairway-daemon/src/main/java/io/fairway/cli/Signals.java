package io.fairway.cli;

/**
 * POSIX signal handlers for {@code fairway run}. The JDK has no public API for SIGHUP, and its
 * default SIGTERM handling runs shutdown hooks and exits with 143, where keepalived's contract is
 * "clean up and exit 0"; {@code sun.misc.Signal} (module jdk.unsupported) is the supported way
 * around both.
 */
final class Signals {
  private Signals() {}

  @SuppressWarnings("sunapi")
  static void on(String name, Runnable action) {
    sun.misc.Signal.handle(new sun.misc.Signal(name), s -> {
      Thread t = new Thread(action, "fairway-SIG" + name);
      t.start();
    });
  }
}
