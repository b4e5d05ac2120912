package io.fairway.apply;

import io.fairway.table.Dest;
import io.fairway.table.DestKey;
import io.fairway.table.Ramp;
import io.fairway.table.RampTarget;
import io.fairway.table.Service;
import io.fairway.table.ServiceEntry;
import io.fairway.table.ServiceKey;
import io.fairway.table.Table;
import io.fairway.table.TableException;
import io.fairway.table.TableException.Reason;
import io.fairway.table.TableOp;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * keepalived's {@code ipvs_talk} rules around a {@link Table} (ipvswrapper.c:206-227), with
 * batching.
 *
 * <p>The applier's idea of what is in the table can be stale — an operator ran {@code ipvsadm}, a
 * previous Fairway left entries behind, a reload raced a verdict. An add that finds the entry
 * already there and a delete that finds it gone already have the outcome they wanted, so failing
 * them would only turn a harmless difference into a stuck server. Two deliberate refinements over
 * keepalived: an add that finds the destination present also sets it, so a leftover entry at a
 * stale weight is corrected rather than trusted; and a service add that finds the service present
 * sets it, for the same reason.
 *
 * <p>Between {@link #begin} and {@link #commit} operations are collected and sent with {@link
 * Table#apply}, which the kernel table turns into a few datagrams instead of one round trip per
 * entry: installing a virtual server with a thousand real servers, or withdrawing them all when
 * quorum is lost, takes milliseconds rather than seconds. The kernel processes a batch in order, so
 * ordering guarantees (sorry server in before the pool out) hold within it; refusals are tolerated
 * afterwards by the same rules.
 *
 * <p>It is also where the applier's calls meet the {@link PublicationHold}: every call that reaches
 * the table from here is preceded by {@link PublicationHold#beforeCall}, so a change that is not a
 * verdict's publishes what verdicts have held first, whichever applier method makes it. Nothing
 * writes to the table around this class; only reads that change nothing (status, the overflow
 * watch's counters) use {@link #raw}, and they publish nothing.
 */
final class TolerantTable {
  private final Table table;
  private final PublicationHold hold;

  /** The table as a {@link RampTarget}, or null when it ramps by stepped weights. */
  private final @Nullable RampTarget rampTarget;

  private @Nullable List<TableOp> batch;
  private int depth;

  TolerantTable(Table table, PublicationHold hold) {
    this.table = table;
    this.hold = hold;
    this.rampTarget = table instanceof RampTarget t ? t : null;
  }

  /**
   * The table, to read from: what is held stays held. Every write goes through the methods here.
   */
  Table raw() {
    return table;
  }

  /** Whether the table ramps in its own scheduler ({@link #ramp}). */
  boolean ramps() {
    return rampTarget != null;
  }

  /** Starts collecting operations; nests (only the outermost commit sends). */
  void begin() {
    if (depth++ == 0) {
      hold.beforeCall();
      batch = new ArrayList<>();
    }
  }

  /**
   * Sends what was collected since the outermost {@link #begin}. Every operation is attempted; the
   * first one that stays refused after tolerance is rethrown.
   */
  void commit() throws TableException {
    if (--depth > 0) {
      return;
    }
    List<TableOp> ops = Objects.requireNonNull(batch, "batch"); // begin made it, depth > 0
    batch = null;
    if (ops.isEmpty()) {
      return;
    }
    hold.beforeCall();
    List<TableException> results = table.apply(ops);
    TableException first = null;
    for (int i = 0; i < ops.size(); i++) {
      TableException e = results.get(i);
      if (e == null) {
        continue;
      }
      try {
        tolerate(ops.get(i), e);
      } catch (TableException refused) {
        first = first == null ? refused : first;
      }
    }
    if (first != null) {
      throw first;
    }
  }

  void addService(Service s) throws TableException {
    run(new TableOp.AddService(s));
  }

  void setService(Service s) throws TableException {
    run(new TableOp.SetService(s));
  }

  void delService(ServiceKey key) throws TableException {
    run(new TableOp.DelService(key));
  }

  void addDest(ServiceKey s, Dest d) throws TableException {
    run(new TableOp.AddDest(s, d));
  }

  /** A set that finds no destination is retried as an add (ipvswrapper.c:206-212). */
  void setDest(ServiceKey s, Dest d) throws TableException {
    run(new TableOp.SetDest(s, d));
  }

  void delDest(ServiceKey s, DestKey d) throws TableException {
    run(new TableOp.DelDest(s, d));
  }

  /** Hands a ramp to a table that ramps in its scheduler ({@link #ramps}). */
  void ramp(ServiceKey s, DestKey d, Ramp r) throws TableException {
    hold.beforeCall();
    Objects.requireNonNull(rampTarget, "ramp target").ramp(s, d, r); // ramps() said yes
  }

  /** Empties the whole table. */
  void flush() throws TableException {
    hold.beforeCall();
    table.flush();
  }

  /**
   * Reads the table for a change decided on what is in it (drift repair): as that change, the read
   * publishes what is held first, so it is decided on the table readers see.
   */
  List<ServiceEntry> listToChange() throws TableException {
    hold.beforeCall();
    return table.list();
  }

  private void run(TableOp op) throws TableException {
    if (batch != null) {
      batch.add(op);
      return;
    }
    hold.beforeCall();
    try {
      op.applyTo(table);
    } catch (TableException e) {
      tolerate(op, e);
    }
  }

  /** Applies the tolerance rules to a refused operation: succeeds, falls back, or rethrows. */
  private void tolerate(TableOp op, TableException e) throws TableException {
    Reason r = e.reason();
    if (op instanceof TableOp.AddService o && r == Reason.EXISTS) {
      table.setService(o.service());
    } else if (op instanceof TableOp.SetService o && r == Reason.NO_SERVICE) {
      table.addService(o.service());
    } else if (op instanceof TableOp.DelService
        && (r == Reason.NO_SERVICE || r == Reason.NOT_FOUND)) {
      return;
    } else if (op instanceof TableOp.AddDest o && r == Reason.EXISTS) {
      table.setDest(o.service(), o.dest());
    } else if (op instanceof TableOp.SetDest o && r == Reason.NOT_FOUND) {
      table.addDest(o.service(), o.dest());
    } else if (op instanceof TableOp.DelDest && (r == Reason.NOT_FOUND || r == Reason.NO_SERVICE)) {
      // A missing service has no destinations either: the delete's outcome holds.
      return;
    } else {
      throw e;
    }
  }
}
