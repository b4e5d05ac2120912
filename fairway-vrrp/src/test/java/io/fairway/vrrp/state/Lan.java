package io.fairway.vrrp.state;

import io.fairway.vrrp.packet.Advert;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A test network: routers of one virtual router id on a link, a clock we move, adverts delivered to
 * every other live router after {@code latencyNanos}. Records every transition and how long two
 * masters overlapped.
 */
final class Lan {
  final long latencyNanos;
  long now;
  final Map<Router, Boolean> alive = new LinkedHashMap<>();
  final List<String> log = new ArrayList<>();
  private final List<Object[]> inFlight = new ArrayList<>();
  long overlapStart = -1;
  long worstOverlap;

  Lan(long latencyNanos) {
    this.latencyNanos = latencyNanos;
  }

  static InetAddress ip(int last) {
    try {
      return InetAddress.getByAddress(new byte[] {10, 0, 0, (byte) last});
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  static Router router(
      String name, int prio, int last, boolean master, boolean preempt, long preemptDelay) {
    return new Router(
        new Router.Params(name, 2, prio, 100, preempt, preemptDelay, master, ip(last)));
  }

  void add(Router r) {
    alive.put(r, true);
    handle(r.start(now));
  }

  void handle(List<Action> actions) {
    for (Action a : actions) {
      if (a instanceof Action.SendAdvert s) {
        Advert ad =
            new Advert(
                2,
                1,
                s.priority(),
                s.router().params().advertCentis(),
                List.of(),
                Optional.empty());
        inFlight.add(new Object[] {now + latencyNanos, s.router(), ad});
      } else if (a instanceof Action.Transition t) {
        log.add(now / 1_000_000 + "ms " + t.router().name() + " " + t.from() + "->" + t.to());
      }
    }
    trackOverlap();
  }

  void trackOverlap() {
    long masters =
        alive.entrySet().stream()
            .filter(e -> e.getValue() && e.getKey().state() == State.MASTER)
            .count();
    if (masters > 1 && overlapStart < 0) {
      overlapStart = now;
    } else if (masters <= 1 && overlapStart >= 0) {
      worstOverlap = Math.max(worstOverlap, now - overlapStart);
      overlapStart = -1;
    }
  }

  /** A reload that changed the router's settings: the new one takes its place on the link. */
  Router replace(Router old, Router.Params p) {
    Router r = old.reconfigured(p);
    Map<Router, Boolean> copy = new LinkedHashMap<>(alive);
    alive.clear();
    copy.forEach((k, v) -> alive.put(k == old ? r : k, v));
    for (Object[] f : inFlight) {
      if (f[1] == old) {
        f[1] = r;
      }
    }
    return r;
  }

  /** kill -9: no more adverts, no priority 0. */
  void kill(Router r) {
    alive.put(r, false);
    trackOverlap();
  }

  void stop(Router r) {
    handle(r.stop(now));
    alive.put(r, false);
    trackOverlap();
  }

  /** Runs until {@code until}, firing timers and deliveries in time order. */
  void runUntil(long until) {
    while (true) {
      long next = Long.MAX_VALUE;
      for (Map.Entry<Router, Boolean> e : alive.entrySet()) {
        if (e.getValue()) {
          next = Math.min(next, e.getKey().deadline());
        }
      }
      Object[] delivery = null;
      for (Object[] f : inFlight) {
        if ((long) f[0] < next || ((long) f[0] == next && delivery == null)) {
          if (delivery == null || (long) f[0] < (long) delivery[0]) {
            delivery = f;
          }
        }
      }
      long t = delivery != null ? Math.min(next, (long) delivery[0]) : next;
      if (t > until) {
        now = until;
        trackOverlap();
        return;
      }
      now = t;
      if (delivery != null && (long) delivery[0] == t) {
        inFlight.remove(delivery);
        Router from = (Router) delivery[1];
        for (Map.Entry<Router, Boolean> e : alive.entrySet()) {
          if (e.getValue() && e.getKey() != from) {
            handle(e.getKey().advert(now, (Advert) delivery[2], from.params().localAddress()));
          }
        }
        continue;
      }
      for (Map.Entry<Router, Boolean> e : List.copyOf(alive.entrySet())) {
        if (e.getValue() && e.getKey().deadline() <= now) {
          handle(e.getKey().timer(now));
        }
      }
    }
  }

  long masters() {
    return alive.entrySet().stream()
        .filter(e -> e.getValue() && e.getKey().state() == State.MASTER)
        .count();
  }
}
