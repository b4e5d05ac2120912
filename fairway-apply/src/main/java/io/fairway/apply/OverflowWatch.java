package io.fairway.apply;

import io.fairway.table.Dest;
import io.fairway.table.DestKey;
import io.fairway.table.Service;
import io.fairway.table.ServiceEntry;
import io.fairway.table.ServiceKey;
import io.fairway.table.TableException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The control loop behind {@code overflow_to_sorry_server} on a table that cannot overflow by
 * itself (the kernel's IPVS): each {@link #poll} reads the table back once, works out for every
 * service with overflow whether any real server can still take a new connection ({@link PoolRoom},
 * from the kernel's per-destination counters), and tells the {@link Applier}, which raises the
 * standing-by sorry server to its weight when the pool is full and lowers it to 0 as soon as it has
 * room.
 *
 * <p>Why a loop and not a scheduler trick: the kernel's schedulers pick any destination with a
 * weight above zero that is not overloaded, so a sorry server at weight 1 would take its share of
 * connections while the pool still has room, and a different scheduler would change which real
 * server gets each connection. At weight 0 it is invisible to every scheduler, and raised only when
 * every other destination is invisible too, it changes nothing but "refused" into "sorry server".
 * The price is the reading interval: a connection arriving between "pool full" and the next reading
 * is refused, as without overflow (measured in docs/benchmarks.md).
 *
 * <p>Not thread-safe: one thread polls (the daemon's scheduler).
 */
public final class OverflowWatch {
  private final Applier applier;
  private final Map<ServiceKey, PoolRoom> rooms = new HashMap<>();

  public OverflowWatch(Applier applier) {
    this.applier = Objects.requireNonNull(applier, "applier");
  }

  /** One change the watch made. */
  public record Change(String virtualServer, ServiceKey service, boolean overflowing) {}

  /**
   * Reads the table back once and raises or lowers sorry servers.
   *
   * @return the changes made (usually none)
   */
  public List<Change> poll() throws TableException {
    Map<String, ServiceBinding> config = applier.config();
    // Checked on every poll, not once: a reload may add or drop overflow_to_sorry_server.
    if (config.values().stream().noneMatch(ServiceBinding::overflow)) {
      rooms.clear();
      return List.of();
    }
    Map<ServiceKey, ServiceEntry> read = new HashMap<>();
    for (ServiceEntry e : applier.readBack()) {
      read.put(e.service().key(), e);
    }
    List<Change> changes = new ArrayList<>();
    Map<ServiceKey, PoolRoom> kept = new HashMap<>();
    for (ServiceBinding vs : config.values()) {
      if (!vs.overflow()) {
        continue;
      }
      for (Service s : vs.services()) {
        ServiceEntry e = read.get(s.key());
        if (e == null) {
          continue; // not installed yet, or deleted by hand (drift repair restores it)
        }
        PoolRoom room = rooms.computeIfAbsent(s.key(), k -> new PoolRoom());
        kept.put(s.key(), room);
        // overflow is only accepted with a sorry server to overflow to
        Dest sorry = Objects.requireNonNull(vs.sorryServer(), "sorry server");
        DestKey sorryHere = FanOut.destFor(s, sorry, 0).key();
        boolean full = !room.hasRoom(e.dests(), sorryHere);
        try {
          if (applier.overflow(vs.name(), s.key(), full)) {
            changes.add(new Change(vs.name(), s.key(), full));
          }
        } catch (UnknownServerException ex) {
          // Removed by a reload between config() and now: nothing to do for it.
        }
      }
    }
    rooms.clear();
    rooms.putAll(kept);
    return changes;
  }
}
