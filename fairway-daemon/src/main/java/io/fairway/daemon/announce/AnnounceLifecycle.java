package io.fairway.daemon.announce;

import io.fairway.config.model.base.Location;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the daemon does about announcing at start, reload and stop: {@code announce_table} through
 * {@link Announcing} and, on the kernel plane, {@code lvs_sloppy_tcp} through {@link SloppyTcp}.
 *
 * <p>Why both here: the two come from the same settings and only matter together (routers moving a
 * connection to another node is what sloppy TCP is for), and keeping their start, reload and
 * shutdown order in one place leaves the daemon only the wiring.
 */
public final class AnnounceLifecycle implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(AnnounceLifecycle.class);

  private final Announcing announcing;

  /** lvs_sloppy_tcp on the kernel plane; null on the others. */
  private final @Nullable SloppyTcp sloppyTcp;

  /** The configuration file, which the messages name (the keywords are in its global_defs). */
  private final String file;

  /**
   * @param announcing the routes side
   * @param sloppyTcp the kernel plane's sysctl, or null where there is none
   * @param file the configuration file, for messages
   */
  public AnnounceLifecycle(Announcing announcing, @Nullable SloppyTcp sloppyTcp, String file) {
    this.announcing = announcing;
    this.sloppyTcp = sloppyTcp;
    this.file = file;
  }

  /**
   * Opens the announce table (removing the stale routes a crash left, and making sure the table
   * takes changes) and sets lvs_sloppy_tcp; nothing is announced before the first {@link #poke}.
   *
   * @return what the file asks for that this plane ignores, one line each (for the log)
   * @throws IOException the table or the sysctl cannot be used: one line naming the file and the
   *     keyword, for {@code fairway run} to print as it is
   */
  public List<String> start(AnnounceSettings settings) throws IOException {
    try {
      announcing.configure(settings);
    } catch (IOException | RuntimeException e) {
      throw new IOException(
          at(settings.announcement().tableAt())
              + ": announce_table "
              + settings.announcement().table().orElse(-1)
              + " (global_defs): "
              + oneLine(e),
          e);
    }
    if (sloppyTcp != null) {
      try {
        sloppyTcp.apply(settings.announcement().lvsSloppyTcp());
      } catch (IOException e) {
        // Nothing announced yet, but the stale routes are gone and the table is open.
        announcing.close();
        String why = oneLine(e).replaceFirst("^lvs_sloppy_tcp: ", "");
        throw new IOException(
            at(settings.announcement().sloppyTcpAt()) + ": lvs_sloppy_tcp (global_defs): " + why,
            e);
      }
    }
    return ignored(settings);
  }

  /** lvs_sloppy_tcp is IPVS's: the userspace plane has no such sysctl to set. */
  private List<String> ignored(AnnounceSettings settings) {
    if (sloppyTcp == null && settings.announcement().lvsSloppyTcp()) {
      return List.of(
          at(settings.announcement().sloppyTcpAt())
              + ": lvs_sloppy_tcp (global_defs) is ignored: it sets IPVS's sloppy_tcp sysctl, and"
              + " this plane does not use IPVS");
    }
    return List.of();
  }

  /** Where the keyword was written (file:line), or the file where the model has no place for it. */
  private String at(Location where) {
    return where.line() == 0 ? file : where.toString();
  }

  private static String oneLine(Exception e) {
    String m = e.getMessage();
    return (m == null ? e.getClass().getSimpleName() : m).replaceAll("\\s+", " ");
  }

  /**
   * A reload's settings: a new table, services added or removed, lvs_sloppy_tcp; then a pass.
   *
   * @return what could not be applied, one entry a problem (logged already)
   */
  public List<String> reload(AnnounceSettings settings) {
    List<String> refused = new ArrayList<>();
    try {
      announcing.configure(settings);
    } catch (IOException e) {
      LOG.error("reload: announce_table: {}", e.getMessage());
      refused.add("announce_table: " + e.getMessage());
    }
    if (sloppyTcp != null) {
      try {
        sloppyTcp.apply(settings.announcement().lvsSloppyTcp());
      } catch (IOException e) {
        LOG.error("reload: {}", e.getMessage());
        refused.add(e.getMessage());
      }
    }
    ignored(settings).forEach(w -> LOG.warn("reload: {}", w));
    announcing.poke();
    return refused;
  }

  /** Asks for a pass soon ({@link Announcing#poke}). */
  public void poke() {
    announcing.poke();
  }

  /** The routes side: its settings and state. */
  public Announcing announcing() {
    return announcing;
  }

  /**
   * The first step of a stop: every route withdrawn, none to come back.
   *
   * @return how long to wait now for the routers to move new flows away: {@code
   *     announce_withdraw_delay}, or zero when nothing was announced
   */
  public Duration withdraw() {
    if (!announcing.withdraw()) {
      return Duration.ZERO;
    }
    return announcing.settings().announcement().withdrawDelay();
  }

  /**
   * Removes the announced routes (with {@code -I} too: a route left behind would keep attracting
   * traffic to a node nothing checks any more) and puts lvs_sloppy_tcp back.
   */
  @Override
  public void close() {
    announcing.close();
    if (sloppyTcp != null) {
      try {
        sloppyTcp.restore();
      } catch (IOException e) {
        LOG.warn("{}", e.getMessage());
      }
    }
  }
}
