package io.fairway.cli;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * POSIX signal handlers for {@code fairway run}. The JDK has no public API for SIGHUP, and its
 * default SIGTERM handling runs shutdown hooks and exits with 143, where keepalived's contract is
 * "clean up and exit 0"; {@code sun.misc.Signal} (module jdk.unsupported) is the supported way
 * around both.
 *
 * <p>The JVM refuses to handle SIGHUP, SIGINT or SIGTERM when the process inherited it as ignored
 * ({@code nohup}, a supervisor that ignores it in its children): {@code Signal.handle} then returns
 * without installing anything, and every later SIGHUP is silently dropped. Reload (HUP) and a clean
 * stop (TERM) are what those signals mean to Fairway, as to keepalived, which installs its handlers
 * whatever it inherited; so for those two the inherited "ignore" is put back to the default first.
 * SIGINT is left as inherited: a shell ignores it in its background jobs so that Ctrl-C reaches
 * only the foreground.
 */
final class Signals {
  private static final Logger LOG = LoggerFactory.getLogger(Signals.class);

  /** The signals whose inherited "ignore" Fairway takes back. */
  private static final Set<String> OURS = Set.of("HUP", "TERM");

  private Signals() {}

  /** Puts back the handler that {@link #on} replaced. */
  interface Restore extends AutoCloseable {
    @Override
    void close();
  }

  /** libc's {@code signal(2)}: only used to put an ignored signal back to {@code SIG_DFL}. */
  interface LibC extends Library {
    LibC INSTANCE = Native.load("c", LibC.class);

    Pointer signal(int signum, Pointer handler);
  }

  /**
   * Runs {@code action} on a new thread for each {@code SIG<name>}. A command that returns while
   * the JVM lives on (run in-process, as tests and {@code fairway demo} do) closes the result:
   * otherwise the JVM's own Ctrl-C and SIGTERM handling would stay replaced by a dead command's.
   */
  @SuppressWarnings("sunapi")
  static Restore on(String name, Runnable action) {
    sun.misc.Signal signal = new sun.misc.Signal(name);
    if (OURS.contains(name) && ignored(signal.getNumber())) {
      takeBack(name, signal.getNumber());
    }
    sun.misc.SignalHandler previous =
        sun.misc.Signal.handle(
            signal,
            s -> {
              Thread t = new Thread(action, "fairway-SIG" + name);
              // Whatever escapes the action (a bug) is one log line, not a stack trace on stderr.
              t.setUncaughtExceptionHandler(
                  (th, e) ->
                      org.slf4j.LoggerFactory.getLogger(Signals.class)
                          .error("{}: {}", th.getName(), e.toString()));
              t.start();
            });
    return () -> sun.misc.Signal.handle(signal, previous);
  }

  /** Whether this process ignores signal {@code number} ({@code SigIgn} of /proc/self/status). */
  static boolean ignored(int number) {
    return ignored(procStatus(), number);
  }

  /** The same, read from the text of a {@code /proc/PID/status}. */
  static boolean ignored(String status, int number) {
    for (String line : status.split("\n")) {
      if (line.startsWith("SigIgn:")) {
        try {
          return new BigInteger(line.substring("SigIgn:".length()).trim(), 16).testBit(number - 1);
        } catch (NumberFormatException e) {
          return false;
        }
      }
    }
    return false;
  }

  private static String procStatus() {
    try {
      return Files.readString(Path.of("/proc/self/status"));
    } catch (IOException e) {
      return ""; // not Linux: nothing known to be ignored
    }
  }

  private static void takeBack(String name, int number) {
    try {
      LibC.INSTANCE.signal(number, null); // SIG_DFL, so that the JVM may install its handler
      LOG.info(
          "SIG{} was ignored by whoever started fairway (nohup?); fairway handles it anyway", name);
    } catch (LinkageError e) {
      LOG.warn(
          "SIG{} is ignored by whoever started fairway (nohup?) and JNA cannot take it back"
              + " ({}): SIG{} does nothing{}",
          name,
          e.getMessage(),
          name,
          name.equals("HUP") ? "; reload with `fairway reload`" : "");
    }
  }
}
