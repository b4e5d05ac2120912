package io.fairway.cli;

/**
 * A signal's action held back until the daemon can carry it out. SIGHUP must be handled from the
 * moment the table starts going in: the JVM's default for it is to exit (129), and a supervisor or
 * test that reloads as soon as it reads "running" in the log would kill the daemon it meant to
 * reload. A SIGHUP that arrives before {@link #open} is remembered (several count as one, as the
 * kernel coalesces pending signals) and carried out when it opens; after {@link #close} (the daemon
 * is stopping) signals are ignored.
 */
final class DeferredSignal {
  private final Runnable action;
  private boolean open;
  private boolean pending;
  private boolean closed;

  DeferredSignal(Runnable action) {
    this.action = action;
  }

  /** The signal arrived: acts now if open, else once it opens. */
  void signal() {
    synchronized (this) {
      if (closed) {
        return;
      }
      if (!open) {
        pending = true;
        return;
      }
    }
    action.run();
  }

  /** From now on the action runs at once; a signal that came before runs now. */
  void open() {
    boolean run;
    synchronized (this) {
      if (closed) {
        return;
      }
      open = true;
      run = pending;
      pending = false;
    }
    if (run) {
      action.run();
    }
  }

  /** The daemon is stopping: signals from now on, and one still pending, do nothing. */
  synchronized void close() {
    closed = true;
    pending = false;
  }
}
