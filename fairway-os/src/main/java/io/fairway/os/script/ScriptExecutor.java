package io.fairway.os.script;

import io.fairway.os.LibC;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs MISC_CHECK and notify scripts on a bounded pool.
 *
 * <p>Why these precautions, all from keepalived:
 *
 * <ul>
 *   <li>each script is started in its own session ({@code setsid}), so on timeout the <em>whole
 *       process group</em> is killed — a health script that forked a {@code curl} must not leave it
 *       running for ever;
 *   <li>when Fairway runs as root, scripts run as an unprivileged user ({@code nobody} unless the
 *       configuration names one) via {@code setpriv}, so a script path writable by someone else is
 *       not a root shell;
 *   <li>scripts are checked at load (exists, executable, not writable by others), so a typo is an
 *       error the operator sees when loading, not a server silently marked dead later.
 * </ul>
 *
 * The pool and its queue are bounded: a flood of slow scripts fails checks ("script pool
 * saturated") instead of exhausting threads.
 */
public final class ScriptExecutor implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ScriptExecutor.class);

  /** keepalived sends SIGTERM on timeout and SIGKILL this much later. */
  static final Duration KILL_GRACE = Duration.ofSeconds(2);

  /**
   * Notify scripts have no configured timeout; this keeps a hung one from holding a pool thread for
   * ever.
   */
  static final Duration NOTIFY_TIMEOUT = Duration.ofSeconds(60);

  private static final String DEFAULT_USER = "nobody";

  private final ThreadPoolExecutor pool;
  private final boolean root;

  public ScriptExecutor(int threads, int queue) {
    AtomicInteger n = new AtomicInteger();
    this.pool =
        new ThreadPoolExecutor(
            threads,
            threads,
            30,
            TimeUnit.SECONDS,
            new ArrayBlockingQueue<>(queue),
            r -> {
              Thread t = new Thread(r, "fairway-script-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    this.pool.allowCoreThreadTimeOut(true);
    this.root = isRoot();
  }

  private static boolean isRoot() {
    try {
      return LibC.geteuid() == 0;
    } catch (LinkageError e) {
      return "root".equals(System.getProperty("user.name"));
    }
  }

  /**
   * Checks at load that the script can run.
   *
   * @param where names the configuration element for the error message, e.g. {@code "10.0.0.1:80
   *     MISC_CHECK"}
   * @throws ScriptRejectedException naming {@code where} and what is wrong with the script
   */
  public void validate(ScriptSpec script, String where) {
    Path p = Path.of(script.program());
    if (!p.isAbsolute()) {
      throw new ScriptRejectedException(where + ": script " + p + " must be an absolute path");
    }
    if (!Files.isRegularFile(p)) {
      throw new ScriptRejectedException(where + ": script " + p + " does not exist");
    }
    if (!Files.isExecutable(p)) {
      throw new ScriptRejectedException(where + ": script " + p + " is not executable");
    }
    try {
      var perms = Files.getPosixFilePermissions(p);
      if (perms.contains(PosixFilePermission.OTHERS_WRITE)) {
        throw new ScriptRejectedException(
            where + ": script " + p + " is writable by others; refusing to run it");
      }
      if (root
          && runAs(script) != null
          && !perms.contains(PosixFilePermission.OTHERS_EXECUTE)
          && !perms.contains(PosixFilePermission.GROUP_EXECUTE)) {
        throw new ScriptRejectedException(
            where
                + ": script "
                + p
                + " is not executable by user "
                + userOf(script)
                + " (scripts run unprivileged; chmod o+x, or set a user)");
      }
      if (root && runAs(script) != null) {
        // Otherwise the script fails at every run with "exit 126", far from the cause.
        for (Path d = p.getParent(); d != null; d = d.getParent()) {
          if (!Files.getPosixFilePermissions(d).contains(PosixFilePermission.OTHERS_EXECUTE)) {
            throw new ScriptRejectedException(
                where
                    + ": script "
                    + p
                    + " is in "
                    + d
                    + ", which user "
                    + userOf(script)
                    + " cannot enter (scripts run unprivileged)");
          }
        }
      }
    } catch (IOException | UnsupportedOperationException e) {
      throw new ScriptRejectedException(
          where + ": cannot read permissions of " + p + ": " + e.getMessage());
    }
    if (root && runAs(script) != null && Users.lookup(userOf(script)) == null) {
      throw new ScriptRejectedException(
          where + ": script user " + userOf(script) + " does not exist");
    }
  }

  private static String userOf(ScriptSpec s) {
    return s.user() == null ? DEFAULT_USER : s.user();
  }

  /** The user to switch to, or {@code null} to run as ourselves. */
  private @Nullable String runAs(ScriptSpec s) {
    if (!root) {
      return null;
    }
    String user = userOf(s);
    return "root".equals(user) ? null : user;
  }

  List<String> command(ScriptSpec s) {
    List<String> cmd = new ArrayList<>();
    if (Files.isExecutable(Path.of("/usr/bin/setsid"))) {
      cmd.add("/usr/bin/setsid");
    }
    String user = runAs(s);
    if (user != null) {
      Users.Account a = Users.lookup(user);
      if (a == null) {
        throw new IllegalStateException("user " + user + " does not exist");
      }
      Integer gid = s.group() == null ? Integer.valueOf(a.gid()) : Users.group(s.group());
      if (gid == null) {
        throw new IllegalStateException("group " + s.group() + " does not exist");
      }
      cmd.addAll(
          List.of(
              "/usr/bin/setpriv", "--reuid=" + a.uid(), "--regid=" + gid, "--clear-groups", "--"));
    }
    cmd.addAll(s.argv());
    return cmd;
  }

  /**
   * Runs a script, killing its process group if it outlives {@code timeout}. Never completes
   * exceptionally.
   */
  public CompletableFuture<ScriptOutcome> run(ScriptSpec script, Duration timeout) {
    CompletableFuture<ScriptOutcome> f = new CompletableFuture<>();
    try {
      pool.execute(() -> f.complete(runNow(script, timeout)));
    } catch (RejectedExecutionException e) {
      f.complete(new ScriptOutcome(-1, false, "script pool saturated"));
    }
    return f;
  }

  /** Fire-and-forget for notify_up/down and quorum_up/down; failures are logged. */
  public CompletableFuture<Void> notify(ScriptSpec script, String where) {
    return run(script, NOTIFY_TIMEOUT)
        .thenAccept(
            o -> {
              if (!o.ran() || o.exitCode() != 0) {
                log.warn("{}: notify script {}: {}", where, script, o.describe());
              }
            });
  }

  private ScriptOutcome runNow(ScriptSpec script, Duration timeout) {
    Process p;
    try {
      p =
          new ProcessBuilder(command(script))
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .redirectError(ProcessBuilder.Redirect.DISCARD)
              .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
              .start();
    } catch (IOException | RuntimeException e) {
      return new ScriptOutcome(
          -1, false, "cannot start " + script.program() + ": " + e.getMessage());
    }
    try {
      if (p.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
        return new ScriptOutcome(p.exitValue(), false, null);
      }
      killGroup(p, 15);
      if (!p.waitFor(KILL_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
        killGroup(p, 9);
        p.waitFor(KILL_GRACE.toMillis(), TimeUnit.MILLISECONDS);
      } else {
        // The leader obeyed SIGTERM; make sure nothing it forked survives it.
        killGroup(p, 9);
      }
      return new ScriptOutcome(-1, true, null);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      killGroup(p, 9);
      return new ScriptOutcome(-1, false, "interrupted");
    }
  }

  private static void killGroup(Process p, int signal) {
    int pid = (int) p.pid();
    try {
      // setsid made the script a session and group leader: pgid == pid.
      LibC.Quiet.kill(-pid, signal);
    } catch (LinkageError e) {
      p.descendants()
          .forEach(signal == 9 ? ProcessHandle::destroyForcibly : ProcessHandle::destroy);
    }
    if (signal == 9) {
      p.destroyForcibly();
    }
  }

  @Override
  public void close() {
    pool.shutdownNow();
  }
}
