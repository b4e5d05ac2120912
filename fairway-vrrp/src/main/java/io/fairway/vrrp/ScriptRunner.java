package io.fairway.vrrp;

import io.fairway.config.model.base.Script;
import io.fairway.config.model.vrrp.Notify;
import io.fairway.config.model.vrrp.VrrpScript;
import io.fairway.os.script.ScriptExecutor;
import io.fairway.os.script.ScriptOutcome;
import io.fairway.os.script.ScriptSpec;
import io.fairway.vrrp.state.State;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the configuration's scripts as keepalived does: vrrp_script checks and the notify scripts of
 * instances and sync groups, each as its own user or global_defs {@code script_user}.
 */
final class ScriptRunner implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ScriptRunner.class);

  private final Optional<String> scriptUser;
  private final ScriptExecutor executor;
  private final boolean ownsExecutor;

  /**
   * @param scriptUser global_defs {@code script_user} (the user scripts run as by default)
   * @param executor the executor to share, or null for a private one
   */
  ScriptRunner(Optional<String> scriptUser, @Nullable ScriptExecutor executor) {
    this.scriptUser = scriptUser;
    this.ownsExecutor = executor == null;
    this.executor = executor != null ? executor : new ScriptExecutor(4, 256);
  }

  /** One run of a vrrp_script, completed when it exits or times out. */
  CompletableFuture<ScriptOutcome> check(VrrpScript s) {
    return executor.run(spec(s.script(), List.of()), s.timeout());
  }

  /**
   * An instance's notify scripts for a change of state.
   *
   * @param removing the instance is being deleted by a reload (its STOP notifies as keepalived's
   *     deletion does)
   * @param atExit notify_stop is waited for
   */
  void instanceChanged(
      String name,
      Notify scripts,
      State from,
      State to,
      int priority,
      boolean removing,
      boolean atExit) {
    if (to == State.STOP && removing) {
      // keepalived 2.2.7's clear_diff_vrrp: an instance the reload deleted is notified DELETED,
      // sent as FAULT without notify_deleted (not implemented here), and nothing if it was in
      // FAULT already. send_instance_notifies picks the state's own script while the state is
      // still DELETED (none), so only the generic `notify` runs, with FAULT; notify_fault and
      // notify_stop do not.
      if (from != State.FAULT) {
        Notify generic =
            new Notify(
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                scripts.any());
        notify(generic, State.FAULT, "INSTANCE", name, priority, false);
      }
    } else if (to != State.INIT) {
      notify(scripts, to, "INSTANCE", name, priority, atExit && to == State.STOP);
    }
  }

  /**
   * keepalived's order: the state's own script, then {@code notify TYPE NAME STATE PRIORITY}.
   *
   * @param wait wait for them (keepalived gives notify_stop one second at shutdown)
   */
  void notify(Notify n, State st, String type, String name, int priority, boolean wait) {
    Optional<Script> own =
        switch (st) {
          case MASTER -> n.master();
          case BACKUP -> n.backup();
          case FAULT -> n.fault();
          case STOP -> n.stop();
          default -> Optional.empty();
        };
    List<CompletableFuture<Void>> runs = new ArrayList<>();
    own.ifPresent(s -> runs.add(executor.notify(spec(s, List.of()), type + " " + name)));
    n.any()
        .ifPresent(
            s ->
                runs.add(
                    executor.notify(
                        spec(s, List.of(type, name, st.notifyName(), Integer.toString(priority))),
                        type + " " + name)));
    if (wait) {
      for (var f : runs) {
        try {
          f.get(1, TimeUnit.SECONDS);
        } catch (Exception e) {
          log.debug("notify at stop: {}", e.toString());
        }
      }
    }
  }

  private ScriptSpec spec(Script s, List<String> extra) {
    List<String> argv = new ArrayList<>(s.argv());
    argv.addAll(extra);
    return new ScriptSpec(
        argv,
        s.user().or(() -> scriptUser.map(u -> u.split(" ")[0])).orElse(null),
        s.group().orElse(null));
  }

  /** Closes the executor if it is this runner's own. */
  @Override
  public void close() {
    if (ownsExecutor) {
      executor.close();
    }
  }
}
