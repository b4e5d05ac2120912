package io.fairway.apply;

import io.fairway.apply.Applier.DesiredService;
import io.fairway.table.Dest;
import io.fairway.table.DestEntry;
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
import org.jspecify.annotations.Nullable;

/**
 * Converges the table to what the applier wants, after someone edited it behind Fairway's back.
 *
 * <p>keepalived never reads the table back: a destination deleted with {@code ipvsadm} stays
 * deleted until the next verdict on that server, which for a healthy server may be never
 * (keepalived issue #1877). Reading back periodically and converging closes that hole. Only
 * services the applier owns are compared; anything else in the table belongs to someone else.
 */
final class DriftRepair {
  private DriftRepair() {}

  static List<Drift> repair(TolerantTable table, Map<ServiceKey, DesiredService> want)
      throws TableException {
    Map<ServiceKey, ServiceEntry> have = new HashMap<>();
    for (ServiceEntry e : table.listToChange()) {
      have.put(e.service().key(), e);
    }
    List<Drift> drifts = new ArrayList<>();
    for (DesiredService d : want.values()) {
      ServiceKey key = d.service().key();
      ServiceEntry actual = have.get(key);
      if (actual == null) {
        drifts.add(new Drift(Drift.Kind.MISSING_SERVICE, key, null, ""));
        table.addService(d.service());
        for (Dest dest : d.dests().values()) {
          table.addDest(key, dest);
        }
        continue;
      }
      if (!sameService(actual.service(), d.service())) {
        drifts.add(
            new Drift(
                Drift.Kind.CHANGED_SERVICE,
                key,
                null,
                "was " + actual.service() + ", want " + d.service()));
        table.setService(d.service());
      }
      Map<DestKey, Dest> actualDests = new HashMap<>();
      for (DestEntry de : actual.dests()) {
        actualDests.put(de.dest().key(), de.dest());
      }
      for (Dest dest : d.dests().values()) {
        Dest a = actualDests.get(dest.key());
        if (a == null) {
          drifts.add(
              new Drift(Drift.Kind.MISSING_DEST, key, dest.key(), "want weight " + dest.weight()));
          table.addDest(key, dest);
        } else if (!a.equals(dest)) {
          drifts.add(
              new Drift(Drift.Kind.CHANGED_DEST, key, dest.key(), "was " + a + ", want " + dest));
          table.setDest(key, dest);
        }
      }
      for (Dest a : actualDests.values()) {
        if (!d.dests().containsKey(a.key())) {
          drifts.add(new Drift(Drift.Kind.EXTRA_DEST, key, a.key(), "weight " + a.weight()));
          table.delDest(key, a.key());
        }
      }
    }
    return drifts;
  }

  private static boolean sameService(Service a, Service b) {
    return a.scheduler().equals(b.scheduler())
        && a.flags().equals(b.flags())
        && a.timeout() == b.timeout()
        && a.netmask() == b.netmask()
        && Objects.equals(blankToNull(a.persistenceEngine()), blankToNull(b.persistenceEngine()));
  }

  private static @Nullable String blankToNull(@Nullable String s) {
    return s == null || s.isEmpty() ? null : s;
  }
}
