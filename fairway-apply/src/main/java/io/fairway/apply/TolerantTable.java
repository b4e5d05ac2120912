package io.fairway.apply;

import io.fairway.ipvs.Dest;
import io.fairway.ipvs.DestKey;
import io.fairway.ipvs.Service;
import io.fairway.ipvs.ServiceKey;
import io.fairway.ipvs.Table;
import io.fairway.ipvs.TableException;
import io.fairway.ipvs.TableException.Reason;

/**
 * keepalived's {@code ipvs_talk} rules around a {@link Table} (ipvswrapper.c:206-227).
 *
 * <p>The applier's idea of what is in the table can be stale — an operator ran {@code ipvsadm}, a
 * previous Fairway left entries behind, a reload raced a verdict. An add that finds the entry
 * already there and a delete that finds it gone already have the outcome they wanted, so failing
 * them would only turn a harmless difference into a stuck server. Two deliberate refinements over
 * keepalived: an add that finds the destination present also sets it, so a leftover entry at a
 * stale weight is corrected rather than trusted; and a service add that finds the service present
 * sets it, for the same reason.
 */
final class TolerantTable {
  private final Table table;

  TolerantTable(Table table) {
    this.table = table;
  }

  Table raw() {
    return table;
  }

  void addService(Service s) throws TableException {
    try {
      table.addService(s);
    } catch (TableException e) {
      if (e.reason() != Reason.EXISTS) {
        throw e;
      }
      table.setService(s);
    }
  }

  void setService(Service s) throws TableException {
    try {
      table.setService(s);
    } catch (TableException e) {
      if (e.reason() != Reason.NO_SERVICE) {
        throw e;
      }
      table.addService(s);
    }
  }

  void delService(ServiceKey key) throws TableException {
    try {
      table.delService(key);
    } catch (TableException e) {
      if (e.reason() != Reason.NO_SERVICE && e.reason() != Reason.NOT_FOUND) {
        throw e;
      }
    }
  }

  void addDest(ServiceKey s, Dest d) throws TableException {
    try {
      table.addDest(s, d);
    } catch (TableException e) {
      if (e.reason() != Reason.EXISTS) {
        throw e;
      }
      table.setDest(s, d);
    }
  }

  /** A set that finds no destination is retried as an add (ipvswrapper.c:206-212). */
  void setDest(ServiceKey s, Dest d) throws TableException {
    try {
      table.setDest(s, d);
    } catch (TableException e) {
      if (e.reason() != Reason.NOT_FOUND) {
        throw e;
      }
      table.addDest(s, d);
    }
  }

  void delDest(ServiceKey s, DestKey d) throws TableException {
    try {
      table.delDest(s, d);
    } catch (TableException e) {
      // A missing service has no destinations either: the delete's outcome holds.
      if (e.reason() != Reason.NOT_FOUND && e.reason() != Reason.NO_SERVICE) {
        throw e;
      }
    }
  }
}
