package io.fairway.cli;

import io.fairway.os.LibC;
import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
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

  /**
   * Runs {@code action} on a new thread for each {@code SIG<name>}. A command that returns while
   * the JVM lives on (run in-process, as tests and {@code fairway demo} do) closes the result:
   * otherwise the JVM's own Ctrl-C and SIGTERM handling would stay replaced by a dead command's.
   */
  static Restore on(String name, Runnable action) {
    Object signal = SunSignal.named(name);
    int number = SunSignal.number(signal);
    if (OURS.contains(name) && ignored(number)) {
      takeBack(name, number);
    }
    Object previous =
        SunSignal.handle(
            signal,
            SunSignal.handler(
                () -> {
                  Thread t = new Thread(action, "fairway-SIG" + name);
                  // Whatever escapes the action (a bug) is one log line, not a stack trace.
                  t.setUncaughtExceptionHandler(
                      (th, e) -> LOG.error("{}: {}", th.getName(), e.toString()));
                  t.start();
                }));
    return () -> SunSignal.handle(signal, previous);
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
      LibC.signal(number, null); // SIG_DFL, so that the JVM may install its handler
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

  /**
   * {@code sun.misc.Signal} and {@code SignalHandler}, reached by reflection: javac warns on every
   * direct use of them, a warning no annotation silences when compiling with {@code --release}, and
   * the build fails on warnings. The package is exported by jdk.unsupported, so reflection needs no
   * opening. Signals and handlers are passed around as the objects they are.
   */
  static final class SunSignal {
    private static final Class<?> SIGNAL;
    private static final Class<?> HANDLER;
    private static final Constructor<?> NEW;
    private static final Method HANDLE;
    private static final Method RAISE;
    private static final Method NUMBER;

    static {
      try {
        SIGNAL = Class.forName("sun.misc.Signal");
        HANDLER = Class.forName("sun.misc.SignalHandler");
        NEW = SIGNAL.getConstructor(String.class);
        HANDLE = SIGNAL.getMethod("handle", SIGNAL, HANDLER);
        RAISE = SIGNAL.getMethod("raise", SIGNAL);
        NUMBER = SIGNAL.getMethod("getNumber");
      } catch (ReflectiveOperationException e) {
        throw new ExceptionInInitializerError(e);
      }
    }

    private SunSignal() {}

    /** {@code new Signal(name)}; an unknown name throws IllegalArgumentException, as there. */
    static Object named(String name) {
      return call(() -> NEW.newInstance(name));
    }

    static int number(Object signal) {
      return (Integer) call(() -> NUMBER.invoke(signal));
    }

    /** {@code Signal.handle}: installs {@code handler}, returns the one it replaced. */
    static Object handle(Object signal, Object handler) {
      return call(() -> HANDLE.invoke(null, signal, handler));
    }

    static void raise(Object signal) {
      call(() -> RAISE.invoke(null, signal));
    }

    /** A {@code SignalHandler} that runs {@code action}. */
    static Object handler(Runnable action) {
      InvocationHandler h =
          (proxy, method, args) ->
              switch (method.getName()) {
                case "handle" -> {
                  action.run();
                  yield null;
                }
                case "equals" -> proxy == args[0];
                case "hashCode" -> System.identityHashCode(proxy);
                default -> "SignalHandler(" + action + ")";
              };
      return Proxy.newProxyInstance(HANDLER.getClassLoader(), new Class<?>[] {HANDLER}, h);
    }

    private interface Call {
      Object run() throws ReflectiveOperationException;
    }

    private static Object call(Call c) {
      try {
        return c.run();
      } catch (InvocationTargetException e) {
        Throwable cause = e.getCause();
        throw cause instanceof RuntimeException r ? r : new IllegalStateException(cause);
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException(e);
      }
    }
  }
}
