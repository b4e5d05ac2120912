package io.fairway.cli;

/**
 * POSIX signal handlers for {@code fairway run}. The JDK has no public API for SIGHUP, and its
 * default SIGTERM handling runs shutdown hooks and exits with 143, where keepalived's contract is
 * "clean up and exit 0"; {@code sun.misc.Signal} (module jdk.unsupported) is the supported way
 * around both.
 */
final class Signals {
  private Signals() {}

  /** Puts back the handler that {@link #on} replaced. */
  interface Restore extends AutoCloseable {
    @Override
    void close();
  }

  /**
   * Runs {@code action} on a new thread for each {@code SIG<name>}. A command that returns while
   * the JVM lives on (run in-process, as tests and {@code fairway demo} do) closes the result:
   * otherwise the JVM's own Ctrl-C and SIGTERM handling would stay replaced by a dead command's.
   */
  @SuppressWarnings("sunapi")
  static Restore on(String name, Runnable action) {
    sun.misc.Signal signal = new sun.misc.Signal(name);
    sun.misc.SignalHandler previous = sun.misc.Signal.handle(signal, s -> {
      Thread t = new Thread(action, "fairway-SIG" + name);
      // Whatever escapes the action (a bug) is one log line, not a stack trace on stderr.
      t.setUncaughtExceptionHandler((th, e) -> org.slf4j.LoggerFactory.getLogger(Signals.class)
          .error("{}: {}", th.getName(), e.toString()));
      t.start();
    });
    return () -> sun.misc.Signal.handle(signal, previous);
  }
}
