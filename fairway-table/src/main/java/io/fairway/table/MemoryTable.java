package io.fairway.table;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * An in-memory table that validates and fails exactly like the kernel's IPVS: the same {@link
 * TableException.Reason}, errno and message for the same mistake. It is the executable
 * specification of the kernel's behaviour (the same contract tests run against both, the kernel one
 * inside user-mode Linux) and the table the apply layer's sequencing tests run against.
 *
 * <p>It forwards nothing, so its counters are always zero. Not thread-safe, like the kernel table.
 */
public final class MemoryTable implements Table, TimeoutControl {
  /** The schedulers a stock kernel with all ip_vs_* modules loaded knows, plus {@code none}. */
  public static final Set<String> KERNEL_SCHEDULERS =
      Set.of(
          "rr", "wrr", "lc", "wlc", "lblc", "lblcr", "dh", "sh", "sed", "nq", "fo", "ovf", "mh",
          "none");

  /** Persistence engines the kernel ships. */
  public static final Set<String> KERNEL_PERSISTENCE_ENGINES = Set.of("sip");

  private final Set<String> schedulers;
  private final Set<String> engines;
  private final Map<ServiceKey, Entry> services = new LinkedHashMap<>();
  private Timeouts timeouts = Timeouts.KERNEL_DEFAULTS;

  private static final class Entry {
    Service service;
    final Map<DestKey, Dest> dests = new LinkedHashMap<>();

    Entry(Service service) {
      this.service = service;
    }
  }

  /** A table that knows the stock kernel's schedulers and persistence engines. */
  public MemoryTable() {
    this(KERNEL_SCHEDULERS, KERNEL_PERSISTENCE_ENGINES);
  }

  /** A table that knows the given schedulers (e.g. plus the Varnish director names). */
  public MemoryTable(Set<String> schedulers, Set<String> persistenceEngines) {
    this.schedulers = Set.copyOf(schedulers);
    this.engines = Set.copyOf(persistenceEngines);
  }

  @Override
  public void addService(Service s) throws TableException {
    TableOp op = new TableOp.AddService(s);
    if (services.containsKey(s.key())) {
      throw TableErrors.of(TableErrors.EEXIST, op, "");
    }
    validate(s, op);
    services.put(s.key(), new Entry(s));
  }

  @Override
  public void setService(Service s) throws TableException {
    TableOp op = new TableOp.SetService(s);
    Entry e = find(s.key(), op);
    validate(s, op);
    e.service = s;
  }

  private void validate(Service s, TableOp op) throws TableException {
    // ip_vs_add_service / ip_vs_edit_service: the scheduler, then the persistence engine, then
    // (IPv6 only) the persistence prefix.
    if (!schedulers.contains(s.scheduler())) {
      throw TableErrors.of(TableErrors.ENOENT, op, "");
    }
    if (s.persistenceEngine() != null && !engines.contains(s.persistenceEngine())) {
      throw TableErrors.of(TableErrors.ENOENT, op, "");
    }
    if (s.key().family() == AddressFamily.INET6 && (s.netmask() < 1 || s.netmask() > 128)) {
      throw TableErrors.of(TableErrors.EINVAL, op, "");
    }
  }

  @Override
  public void delService(ServiceKey key) throws TableException {
    find(key, new TableOp.DelService(key));
    services.remove(key);
  }

  @Override
  public void addDest(ServiceKey service, Dest dest) throws TableException {
    TableOp op = new TableOp.AddDest(service, dest);
    Entry e = find(service, op);
    checkFamily(e, dest, op);
    checkRanges(dest, op);
    if (e.dests.containsKey(dest.key())) {
      throw TableErrors.of(TableErrors.EEXIST, op, "");
    }
    if (!unicast(dest.address())) {
      throw TableErrors.of(TableErrors.EINVAL, op, "");
    }
    e.dests.put(dest.key(), dest.normalized());
  }

  @Override
  public void setDest(ServiceKey service, Dest dest) throws TableException {
    TableOp op = new TableOp.SetDest(service, dest);
    Entry e = find(service, op);
    checkFamily(e, dest, op);
    checkRanges(dest, op);
    if (!e.dests.containsKey(dest.key())) {
      throw TableErrors.of(TableErrors.ENOENT, op, "");
    }
    e.dests.put(dest.key(), dest.normalized());
  }

  @Override
  public void delDest(ServiceKey service, DestKey dest) throws TableException {
    TableOp op = new TableOp.DelDest(service, dest);
    Entry e = find(service, op);
    if (e.dests.remove(dest) == null) {
      throw TableErrors.of(TableErrors.ENOENT, op, "");
    }
  }

  @Override
  public List<ServiceEntry> list() {
    List<ServiceEntry> out = new ArrayList<>(services.size());
    for (Entry e : services.values()) {
      List<DestEntry> dests = new ArrayList<>(e.dests.size());
      for (Dest d : e.dests.values()) {
        dests.add(new DestEntry(d, 0, 0, 0, Stats.ZERO));
      }
      out.add(new ServiceEntry(e.service, dests, Stats.ZERO));
    }
    return out;
  }

  @Override
  public void flush() {
    services.clear();
  }

  @Override
  public Timeouts timeouts() {
    return timeouts;
  }

  /** As the kernel: zero fields are left as they are. */
  @Override
  public void setTimeouts(Timeouts t) {
    timeouts = t.over(timeouts);
  }

  private Entry find(ServiceKey key, TableOp op) throws TableException {
    Entry e = services.get(key);
    if (e == null) {
      throw TableErrors.of(TableErrors.ESRCH, op, "");
    }
    return e;
  }

  /** ip_vs_genl_set_cmd: a destination of another family only for tunnelling. */
  private static void checkFamily(Entry e, Dest d, TableOp op) throws TableException {
    if (AddressFamily.of(d.address()) != e.service.key().family()
        && d.forwarding() != ForwardingMethod.TUNNEL) {
      throw TableErrors.of(TableErrors.EINVAL, op, "");
    }
  }

  /** ip_vs_add_dest / ip_vs_edit_dest: thresholds before the lookup. */
  private static void checkRanges(Dest d, TableOp op) throws TableException {
    if (d.lowerThreshold() > d.upperThreshold()) {
      throw TableErrors.of(TableErrors.ERANGE, op, "");
    }
  }

  /**
   * ip_vs_new_dest: IPv4 destinations must be unicast or local (not 0/8, broadcast or multicast);
   * IPv6 ones unicast and not link-local (unless local, which this table cannot know).
   */
  static boolean unicast(InetAddress a) {
    if (a instanceof Inet4Address) {
      byte[] b = a.getAddress();
      int first = Byte.toUnsignedInt(b[0]);
      boolean broadcast = (b[0] & b[1] & b[2] & b[3]) == (byte) 0xff;
      return first != 0 && !a.isMulticastAddress() && !broadcast;
    }
    Inet6Address v6 = (Inet6Address) a;
    return !v6.isMulticastAddress() && !v6.isAnyLocalAddress() && !v6.isLinkLocalAddress();
  }
}
