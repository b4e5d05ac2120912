package io.fairway.proxy;

import io.fairway.ipvs.Dest;
import io.fairway.ipvs.DestEntry;
import io.fairway.ipvs.DestKey;
import io.fairway.ipvs.Service;
import io.fairway.ipvs.ServiceEntry;
import io.fairway.ipvs.ServiceFlag;
import io.fairway.ipvs.Stats;
import io.netty.channel.Channel;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * One virtual service of the userspace table: its listener, its destinations and how a new
 * connection or request chooses among them.
 *
 * <p>Writers (the table, on the apply thread) change the members under the table's lock and publish
 * an immutable {@link Pool}; event loops read the pool once per connection without locking. A
 * {@link RealServer} object lives as long as its destination, so a weight change or a reload keeps
 * its counters and its established connections.
 */
final class VirtualService {

  /** What event loops read: the servers, the sorry server and the picker built over them. */
  record Pool(List<RealServer> servers, RealServer sorry, boolean sorryInTable, Picker picker) {}

  private final ProxyOptions options;
  private volatile Service service;
  private volatile ListenerSpec spec;
  private volatile Pool pool;
  /** Destinations in table order; guarded by the table's lock. */
  private final Map<DestKey, RealServer> members = new LinkedHashMap<>();
  /** The spec's sorry server while it is not a destination of the table. */
  private RealServer detachedSorry;
  final Persistence persistence = new Persistence();
  volatile Channel listener;
  volatile InetSocketAddress vip;

  VirtualService(Service service, ListenerSpec spec, ProxyOptions options) {
    this.service = service;
    this.spec = spec;
    this.options = options;
    republish();
  }

  Service service() {
    return service;
  }

  ListenerSpec spec() {
    return spec;
  }

  Pool pool() {
    return pool;
  }

  void setService(Service s) {
    boolean schedChanged = !s.scheduler().equals(service.scheduler());
    boolean persistenceOff = s.timeout() == 0 && service.timeout() != 0;
    service = s;
    if (persistenceOff) {
      persistence.clear();
    }
    if (schedChanged) {
      republish();
    }
  }

  void setSpec(ListenerSpec s) {
    spec = s;
    republish();
  }

  boolean hasDest(DestKey k) {
    return members.containsKey(k);
  }

  RealServer member(DestKey k) {
    return members.get(k);
  }

  void addDest(Dest d) {
    members.put(d.key(), new RealServer(d, (int) options.inactiveExpiry().toSeconds()));
    republish();
  }

  void setDest(Dest d) {
    members.get(d.key()).update(d);
    // Weight and thresholds are read live by the pickers, but weighted algorithms derive tables
    // (wrr's gcd, a hash ring) from the weights, so they are rebuilt.
    republish();
  }

  RealServer delDest(DestKey k) {
    RealServer rs = members.remove(k);
    rs.markRemoved();
    republish();
    return rs;
  }

  List<RealServer> all() {
    return new ArrayList<>(members.values());
  }

  private void republish() {
    ListenerSpec sp = spec;
    InetSocketAddress sorryAddr = sp.sorryServer();
    List<RealServer> real = new ArrayList<>(members.size());
    RealServer sorry = null;
    for (RealServer rs : members.values()) {
      if (sorryAddr != null && rs.address.equals(sorryAddr)) {
        sorry = rs;
      } else {
        real.add(rs);
      }
    }
    boolean inTable = sorry != null;
    if (sorry == null && sorryAddr != null) {
      if (detachedSorry == null || !detachedSorry.address.equals(sorryAddr)) {
        detachedSorry =
            new RealServer(
                Dest.of(sorryAddr.getAddress(), sorryAddr.getPort(), 1),
                (int) options.inactiveExpiry().toSeconds());
      }
      sorry = detachedSorry;
    }
    pool = new Pool(List.copyOf(real), sorry, inTable, Pickers.create(service.scheduler(), sp.directorParams(), real));
  }

  /**
   * The server for a new connection or request, or {@code null} when there is none.
   *
   * @param tried servers whose connect already failed for this client (empty the first time);
   *     they are not chosen again
   */
  RealServer select(InetSocketAddress client, String key, Set<RealServer> tried) {
    Pool p = pool;
    Service s = service;
    boolean persistent = s.flags().contains(ServiceFlag.PERSISTENT) && s.timeout() > 0;
    long now = System.nanoTime();
    long timeout = TimeUnit.SECONDS.toNanos(s.timeout());
    InetAddress ca = client.getAddress();
    if (persistent && tried.isEmpty()) {
      RealServer rs = persistence.lookup(ca, s.netmask(), timeout, now);
      if (rs != null && (p.servers().contains(rs) || rs == p.sorry())) {
        return rs;
      }
    }
    RealServer chosen = null;
    int n = p.servers().size();
    for (int alt = 0; alt <= n && chosen == null; alt++) {
      RealServer rs = p.picker().pick(client, vip, key, alt);
      if (rs == null) {
        break;
      }
      if (!tried.contains(rs) && rs.available()) {
        chosen = rs;
      }
    }
    if (chosen == null && !tried.isEmpty()) {
      // After a failed connect: any other available server, in table order.
      for (RealServer rs : p.servers()) {
        if (!tried.contains(rs) && rs.available()) {
          chosen = rs;
          break;
        }
      }
    }
    if (chosen == null && p.sorry() != null && !tried.contains(p.sorry()) && !p.sorry().removed()) {
      // Quorum lost (apply installed the sorry server) or overflow (every server drained or
      // over its uthreshold): the sorry server answers instead of a refused connection.
      chosen = p.sorry();
    }
    if (chosen != null && persistent) {
      persistence.record(ca, s.netmask(), chosen, timeout, now);
    }
    return chosen;
  }

  ServiceEntry entry() {
    Pool p = pool;
    List<DestEntry> dests = new ArrayList<>();
    long conns = 0;
    long in = 0;
    long out = 0;
    for (RealServer rs : members.values()) {
      DestEntry e = rs.entry();
      dests.add(e);
      conns += e.stats().connections();
      in += e.stats().inBytes();
      out += e.stats().outBytes();
    }
    if (p.sorry() != null && !p.sorryInTable()) {
      DestEntry e = p.sorry().entry();
      conns += e.stats().connections();
      in += e.stats().inBytes();
      out += e.stats().outBytes();
    }
    return new ServiceEntry(service, dests, new Stats(conns, 0, 0, in, out, 0, 0, 0, 0, 0));
  }
}
