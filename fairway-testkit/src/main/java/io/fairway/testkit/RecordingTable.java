package io.fairway.testkit;

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
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * A table that records every successful call and keeps the entries the way the kernel would, with
 * the kernel's EEXIST / ENOENT / ESRCH answers, so sequencing tests see the order of operations and
 * the end state.
 *
 * <p>It also counts publications as the userspace proxy makes them: a call outside a batch
 * publishes its service, a batch ({@link #apply}) or a hold ({@link #hold}, only when {@link
 * #holds}) publishes each service it touched once, at its end. And it refuses what {@link #refuse}
 * says, as a kernel out of memory would.
 *
 * <p>One recording table for every module's tests (apply's sequencing tests, the daemon's reload
 * and admin tests), so the kernel's answers are written once. Its calls are synchronized: the
 * daemon's tests change it from the reload and check threads while the test thread reads {@link
 * #lines}. The fields are for a test to read and set between calls.
 */
public final class RecordingTable implements Table {
  /** Why a service has a map of destinations: adding the service makes it. */
  private static final String HAS_DESTS = "addService made it";

  public final List<TableOp> ops = new ArrayList<>();
  public final Map<ServiceKey, Service> services = new LinkedHashMap<>();
  public final Map<ServiceKey, Map<DestKey, Dest>> dests = new LinkedHashMap<>();

  /** Sizes of the batches sent with {@link #apply}. */
  public final List<Integer> batches = new ArrayList<>();

  /** Refused calls, with their reason, in order. */
  public final List<String> refused = new ArrayList<>();

  /** Connection counters {active, inactive} that {@link #list} reports, as the kernel's. */
  public final Map<DestKey, int[]> counters = new LinkedHashMap<>();

  /** Whether {@link #hold} holds (the userspace proxy) or not (the kernel's table, the default). */
  public boolean holds;

  /** Operations to refuse with {@link Reason#OTHER}, which no tolerance rule absorbs. */
  public Predicate<TableOp> refuse = op -> false;

  /** Each publication of a service's pool, in order. */
  public final List<ServiceKey> publications = new ArrayList<>();

  /** How many holds were released. */
  public int releases;

  /** Run at each release (a test's clock: what publishing takes). */
  public Runnable onRelease = () -> {};

  /** Services touched in the batch or hold under way, or null. */
  private @Nullable Set<ServiceKey> pending;

  private boolean held;

  @Override
  public synchronized void addService(Service s) throws TableException {
    injected(new TableOp.AddService(s));
    if (services.containsKey(s.key())) {
      throw refuse(Reason.EXISTS, "add service " + s.key());
    }
    services.put(s.key(), s);
    dests.put(s.key(), new LinkedHashMap<>());
    ops.add(new TableOp.AddService(s));
    touched(s.key());
  }

  @Override
  public synchronized void setService(Service s) throws TableException {
    injected(new TableOp.SetService(s));
    if (!services.containsKey(s.key())) {
      throw refuse(Reason.NO_SERVICE, "set service " + s.key());
    }
    services.put(s.key(), s);
    ops.add(new TableOp.SetService(s));
    touched(s.key());
  }

  @Override
  public synchronized void delService(ServiceKey key) throws TableException {
    injected(new TableOp.DelService(key));
    if (services.remove(key) == null) {
      throw refuse(Reason.NO_SERVICE, "del service " + key);
    }
    dests.remove(key);
    ops.add(new TableOp.DelService(key));
  }

  @Override
  public synchronized void addDest(ServiceKey s, Dest d) throws TableException {
    injected(new TableOp.AddDest(s, d));
    Map<DestKey, Dest> m = service(s, "add dest");
    if (m.containsKey(d.key())) {
      throw refuse(Reason.EXISTS, "add dest " + s + " " + d.key());
    }
    m.put(d.key(), d);
    ops.add(new TableOp.AddDest(s, d));
    touched(s);
  }

  @Override
  public synchronized void setDest(ServiceKey s, Dest d) throws TableException {
    injected(new TableOp.SetDest(s, d));
    Map<DestKey, Dest> m = service(s, "set dest");
    if (!m.containsKey(d.key())) {
      throw refuse(Reason.NOT_FOUND, "set dest " + s + " " + d.key());
    }
    m.put(d.key(), d);
    ops.add(new TableOp.SetDest(s, d));
    touched(s);
  }

  @Override
  public synchronized void delDest(ServiceKey s, DestKey d) throws TableException {
    injected(new TableOp.DelDest(s, d));
    Map<DestKey, Dest> m = service(s, "del dest");
    if (m.remove(d) == null) {
      throw refuse(Reason.NOT_FOUND, "del dest " + s + " " + d);
    }
    ops.add(new TableOp.DelDest(s, d));
    touched(s);
  }

  @Override
  public synchronized List<TableException> apply(List<TableOp> batch) {
    batches.add(batch.size());
    if (held) {
      return Table.super.apply(batch); // published with the hold
    }
    pending = new LinkedHashSet<>();
    try {
      return Table.super.apply(batch);
    } finally {
      publishPending();
    }
  }

  @Override
  public synchronized boolean hold() {
    if (!holds) {
      return false;
    }
    if (pending == null) {
      pending = new LinkedHashSet<>();
    }
    held = true;
    return true;
  }

  @Override
  public synchronized void release() {
    if (!held) {
      return;
    }
    held = false;
    releases++;
    onRelease.run();
    publishPending();
  }

  /** Whether a hold is on. */
  public synchronized boolean held() {
    return held;
  }

  private void publishPending() {
    Set<ServiceKey> p = Objects.requireNonNull(pending, "a batch or a hold set it");
    pending = null;
    publications.addAll(p);
  }

  private void touched(ServiceKey s) {
    if (pending != null) {
      pending.add(s);
    } else {
      publications.add(s);
    }
  }

  private void injected(TableOp op) throws TableException {
    if (refuse.test(op)) {
      refused.add("OTHER " + op);
      throw new TableException(Reason.OTHER, op + ": refused (injected)");
    }
  }

  @Override
  public synchronized List<ServiceEntry> list() {
    List<ServiceEntry> out = new ArrayList<>();
    for (Service s : services.values()) {
      List<DestEntry> des = new ArrayList<>();
      for (Dest d : Objects.requireNonNull(dests.get(s.key()), HAS_DESTS).values()) {
        int[] c = counters.getOrDefault(d.key(), new int[2]);
        des.add(new DestEntry(d, c[0], c[1], 0, Stats.ZERO));
      }
      out.add(new ServiceEntry(s, des, Stats.ZERO));
    }
    return out;
  }

  @Override
  public synchronized void flush() {
    services.clear();
    dests.clear();
    ops.add(new TableOp.Flush());
  }

  /** Sets a destination's connection counters (in every service), as traffic would. */
  public synchronized void load(DestKey d, int active, int inactive) {
    counters.put(d, new int[] {active, inactive});
  }

  /** The weight of a destination, or null when it is not in the table. */
  public synchronized @Nullable Integer weight(ServiceKey s, DestKey d) {
    Map<DestKey, Dest> m = dests.get(s);
    Dest dest = m == null ? null : m.get(d);
    return dest == null ? null : dest.weight();
  }

  /** Forgets the recorded operations, keeping the entries. */
  public synchronized List<TableOp> drain() {
    List<TableOp> copy = List.copyOf(ops);
    ops.clear();
    return copy;
  }

  /**
   * Sorted "service scheduler" and "service -> dest w=weight" lines, compact enough to assert on.
   */
  public synchronized List<String> lines() {
    TreeSet<String> out = new TreeSet<>();
    services.forEach(
        (k, s) -> {
          out.add(k + " " + s.scheduler());
          Objects.requireNonNull(dests.get(k), HAS_DESTS)
              .values()
              .forEach(d -> out.add(k + " -> " + d.key() + " w=" + d.weight()));
        });
    return List.copyOf(out);
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
