package io.fairway.daemon.announce;

import io.fairway.apply.VirtualServerStatus;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The daemon's side of announcing: opens the configured table and removes the stale routes a crash
 * left there, runs the {@link Announcer} whenever the applier's view may have changed ({@link
 * #poke}, on a thread of its own so a verdict never waits for netlink), applies a reload's
 * settings, withdraws everything when the node stops, and removes its routes at exit.
 *
 * <p>{@code fairway announce on|off} is kept here, across reloads and a change of table.
 */
public final class Announcing implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Announcing.class);

  private final Routes.Opener opener;
  private final Supplier<List<VirtualServerStatus>> status;
  private final Consumer<String> changed;
  private final AtomicBoolean pending = new AtomicBoolean();
  private final ExecutorService worker =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "fairway-announce");
            t.setDaemon(true);
            return t;
          });

  private int table = -1;
  private @Nullable Routes routes;
  private @Nullable Announcer announcer;
  private AnnounceSettings settings = AnnounceSettings.NONE;
  private boolean enabled = true;
  private boolean stopping;
  private boolean failing;

  /**
   * @param opener opens a routing table's routes (the kernel's in production)
   * @param status the applier's view, read at each pass
   * @param changed told each change ({@code "announced 192.0.2.10"}, {@code "withdrew ..."})
   */
  public Announcing(
      Routes.Opener opener, Supplier<List<VirtualServerStatus>> status, Consumer<String> changed) {
    this.opener = opener;
    this.status = status;
    this.changed = changed;
  }

  /**
   * A load's settings (start and reload): a new table is opened and cleared of Fairway's stale
   * routes, the old one emptied of Fairway's; the services apply from the next pass.
   *
   * @throws IOException the table cannot be opened, read or written (the previous settings stay)
   */
  public synchronized void configure(AnnounceSettings s) throws IOException {
    int want = s.announcement().table().orElse(-1);
    if (want != table) {
      Routes opened = null;
      if (want >= 0) {
        opened = opener.open(want);
        try {
          int stale = opened.removeAll();
          if (stale > 0) {
            LOG.info("announce: removed {} stale route(s) from table {}", stale, want);
          }
          opened.checkWritable();
        } catch (IOException e) {
          opened.close();
          throw e;
        }
      }
      closeTable();
      table = want;
      routes = opened;
      announcer = opened == null ? null : new Announcer(opened, s.services());
      if (announcer != null) {
        announcer.enabled(enabled);
        if (stopping) {
          announcer.stopping();
        }
      }
    } else if (announcer != null) {
      announcer.services(s.services());
    }
    settings = s;
  }

  /** The settings in force. */
  public synchronized AnnounceSettings settings() {
    return settings;
  }

  /** Asks for a pass soon, on the announcing thread; several asks before it runs make one pass. */
  public void poke() {
    if (!pending.compareAndSet(false, true)) {
      return;
    }
    try {
      worker.execute(
          () -> {
            pending.set(false);
            reconcile();
          });
    } catch (RejectedExecutionException closed) {
      pending.set(false);
    }
  }

  /**
   * One pass now: the table made to hold what should be announced. Logged, never thrown: the next
   * pass (the drift timer's at the latest) retries.
   *
   * @return the changes made
   */
  public synchronized List<String> reconcile() {
    if (announcer == null) {
      return List.of();
    }
    try {
      List<String> changes = announcer.reconcile(status.get());
      if (failing) {
        LOG.info("announce: table {} answers again", table);
      }
      failing = false;
      for (String c : changes) {
        LOG.info("announce: {} (table {})", c, table);
        changed.accept(c);
      }
      return changes;
    } catch (IOException | RuntimeException e) {
      if (!failing) {
        LOG.warn("announce: cannot update table {}: {}", table, e.getMessage());
      }
      failing = true;
      return List.of();
    }
  }

  /**
   * {@code fairway announce on|off}, applied at once.
   *
   * @return whether the setting changed
   */
  public synchronized boolean enabled(boolean on) {
    boolean was = enabled;
    enabled = on;
    if (announcer != null) {
      announcer.enabled(on);
    }
    reconcile();
    return was != on;
  }

  public synchronized boolean enabled() {
    return enabled;
  }

  /**
   * The node stops: every route is withdrawn now and none comes back.
   *
   * @return whether anything was announced until now (the routers then need the withdraw delay)
   */
  public synchronized boolean withdraw() {
    stopping = true;
    boolean any = view().containsValue(true);
    if (announcer != null) {
      announcer.stopping();
    }
    reconcile();
    return any;
  }

  /** Each announcing address and whether it is announced, sorted; empty when not announcing. */
  public synchronized Map<String, Boolean> view() {
    return announcer == null ? Map.of() : announcer.view();
  }

  /** The kernel routing table in use, or -1. */
  public synchronized int table() {
    return table;
  }

  private void closeTable() {
    if (routes == null) {
      return;
    }
    try {
      int n = routes.removeAll();
      if (n > 0) {
        LOG.info("announce: withdrew {} route(s) from table {}", n, table);
      }
    } catch (IOException e) {
      LOG.warn("announce: cannot empty table {}: {}", table, e.getMessage());
    }
    routes.close();
    routes = null;
    announcer = null;
  }

  /** Removes every route this node announced and stops the announcing thread. */
  @Override
  public void close() {
    worker.shutdownNow();
    try {
      worker.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    synchronized (this) {
      closeTable();
      table = -1;
    }
  }
}
