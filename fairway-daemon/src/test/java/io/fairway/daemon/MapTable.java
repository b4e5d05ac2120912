package io.fairway.daemon;

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
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;

/** An in-memory table with the kernel's EEXIST/ENOENT/ESRCH answers, rendered like ipvsadm -Sn. */
final class MapTable implements Table {
  final Map<ServiceKey, Service> services = new LinkedHashMap<>();
  final Map<ServiceKey, Map<DestKey, Dest>> dests = new LinkedHashMap<>();

  /** Why a service has a map of dests: adding the service makes it. */
  private static final String HAS_DESTS = "addService made it";

  @Override
  public synchronized void addService(Service s) throws TableException {
    if (services.putIfAbsent(s.key(), s) != null) {
      throw new TableException(Reason.EXISTS, "exists");
    }
    dests.put(s.key(), new LinkedHashMap<>());
  }

  @Override
  public synchronized void setService(Service s) throws TableException {
    if (!services.containsKey(s.key())) {
      throw new TableException(Reason.NO_SERVICE, "no service");
    }
    services.put(s.key(), s);
  }

  @Override
  public synchronized void delService(ServiceKey k) throws TableException {
    if (services.remove(k) == null) {
      throw new TableException(Reason.NO_SERVICE, "no service");
    }
    dests.remove(k);
  }

  @Override
  public synchronized void addDest(ServiceKey s, Dest d) throws TableException {
    if (m(s).putIfAbsent(d.key(), d) != null) {
      throw new TableException(Reason.EXISTS, "exists");
    }
  }

  @Override
  public synchronized void setDest(ServiceKey s, Dest d) throws TableException {
    if (!m(s).containsKey(d.key())) {
      throw new TableException(Reason.NOT_FOUND, "no dest");
    }
    m(s).put(d.key(), d);
  }

  @Override
  public synchronized void delDest(ServiceKey s, DestKey d) throws TableException {
    if (m(s).remove(d) == null) {
      throw new TableException(Reason.NOT_FOUND, "no dest");
    }
  }

  private Map<DestKey, Dest> m(ServiceKey s) throws TableException {
    Map<DestKey, Dest> m = dests.get(s);
    if (m == null) {
      throw new TableException(Reason.NO_SERVICE, "no service");
    }
    return m;
  }

  @Override
  public synchronized List<ServiceEntry> list() {
    List<ServiceEntry> out = new ArrayList<>();
    services
        .values()
        .forEach(
            s ->
                out.add(
                    new ServiceEntry(
                        s,
                        Objects.requireNonNull(dests.get(s.key()), HAS_DESTS).values().stream()
                            .map(d -> new DestEntry(d, 0, 0, 0, Stats.ZERO))
                            .toList(),
                        Stats.ZERO)));
    return out;
  }

  @Override
  public synchronized void flush() {
    services.clear();
    dests.clear();
  }

  /** Sorted "service dest weight" lines, compact enough to assert on. */
  synchronized List<String> lines() {
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
}
