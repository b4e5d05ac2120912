package io.fairway.apply;

import io.fairway.table.Dest;
import io.fairway.table.DestEntry;
import io.fairway.table.DestKey;
import io.fairway.table.Service;
import io.fairway.table.ServiceEntry;
import io.fairway.table.ServiceKey;
import io.fairway.table.Stats;
import io.fairway.table.Table;
import io.fairway.table.TableException;
import io.fairway.table.TableException.Reason;
import io.fairway.table.TableOp;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A table that records every successful call and keeps the entries the way the kernel would, with
 * the kernel's EEXIST / ENOENT / ESRCH answers, so sequencing tests see the order of operations and
 * the end state.
 */
final class RecordingTable implements Table {
  final List<TableOp> ops = new ArrayList<>();
  final Map<ServiceKey, Service> services = new LinkedHashMap<>();
  final Map<ServiceKey, Map<DestKey, Dest>> dests = new LinkedHashMap<>();

  /** Sizes of the batches sent with {@link #apply}. */
  final List<Integer> batches = new ArrayList<>();

  /** Refused calls, with their reason, in order. */
  final List<String> refused = new ArrayList<>();

  /** Connection counters {active, inactive} that {@link #list} reports, as the kernel's. */
  final Map<DestKey, int[]> counters = new LinkedHashMap<>();

  @Override
  public void addService(Service s) throws TableException {
    if (services.containsKey(s.key())) {
      throw refuse(Reason.EXISTS, "add service " + s.key());
    }
    services.put(s.key(), s);
    dests.put(s.key(), new LinkedHashMap<>());
    ops.add(new TableOp.AddService(s));
  }

  @Override
  public void setService(Service s) throws TableException {
    if (!services.containsKey(s.key())) {
      throw refuse(Reason.NO_SERVICE, "set service " + s.key());
    }
    services.put(s.key(), s);
    ops.add(new TableOp.SetService(s));
  }

  @Override
  public void delService(ServiceKey key) throws TableException {
    if (services.remove(key) == null) {
      throw refuse(Reason.NO_SERVICE, "del service " + key);
    }
    dests.remove(key);
    ops.add(new TableOp.DelService(key));
  }

  @Override
  public void addDest(ServiceKey s, Dest d) throws TableException {
    Map<DestKey, Dest> m = service(s, "add dest");
    if (m.containsKey(d.key())) {
      throw refuse(Reason.EXISTS, "add dest " + s + " " + d.key());
    }
    m.put(d.key(), d);
    ops.add(new TableOp.AddDest(s, d));
  }

  @Override
  public void setDest(ServiceKey s, Dest d) throws TableException {
    Map<DestKey, Dest> m = service(s, "set dest");
    if (!m.containsKey(d.key())) {
      throw refuse(Reason.NOT_FOUND, "set dest " + s + " " + d.key());
    }
    m.put(d.key(), d);
    ops.add(new TableOp.SetDest(s, d));
  }

  @Override
  public void delDest(ServiceKey s, DestKey d) throws TableException {
    Map<DestKey, Dest> m = service(s, "del dest");
    if (m.remove(d) == null) {
      throw refuse(Reason.NOT_FOUND, "del dest " + s + " " + d);
    }
    ops.add(new TableOp.DelDest(s, d));
  }

  @Override
  public List<TableException> apply(List<TableOp> batch) {
    batches.add(batch.size());
    return Table.super.apply(batch);
  }

  @Override
  public List<ServiceEntry> list() {
    List<ServiceEntry> out = new ArrayList<>();
    for (Service s : services.values()) {
      List<DestEntry> des = new ArrayList<>();
      for (Dest d : dests.get(s.key()).values()) {
        int[] c = counters.getOrDefault(d.key(), new int[2]);
        des.add(new DestEntry(d, c[0], c[1], 0, Stats.ZERO));
      }
      out.add(new ServiceEntry(s, des, Stats.ZERO));
    }
    return out;
  }

  @Override
  public void flush() {
    services.clear();
    dests.clear();
    ops.add(new TableOp.Flush());
  }

  /** Sets a destination's connection counters (in every service), as traffic would. */
  void load(DestKey d, int active, int inactive) {
    counters.put(d, new int[] {active, inactive});
  }

  /** The weight of a destination, or null when it is not in the table. */
  Integer weight(ServiceKey s, DestKey d) {
    Map<DestKey, Dest> m = dests.get(s);
    Dest dest = m == null ? null : m.get(d);
    return dest == null ? null : dest.weight();
  }

  /** Forgets the recorded operations, keeping the entries. */
  List<TableOp> drain() {
    List<TableOp> copy = List.copyOf(ops);
    ops.clear();
    return copy;
  }

  private Map<DestKey, Dest> service(ServiceKey s, String what) throws TableException {
    Map<DestKey, Dest> m = dests.get(s);
    if (m == null) {
      throw refuse(Reason.NO_SERVICE, what + " " + s);
    }
    return m;
  }

  private TableException refuse(Reason r, String what) {
    refused.add(r + " " + what);
    return new TableException(r, what + ": " + r);
  }
}
