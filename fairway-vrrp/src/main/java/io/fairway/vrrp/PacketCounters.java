package io.fairway.vrrp;

import io.fairway.vrrp.view.DropKind;
import java.util.EnumMap;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The speaker's counters that belong to no instance: packets received, and what was dropped or
 * failed, by kind. Written by the receive threads and the event thread, read by any.
 */
final class PacketCounters {
  private final EnumMap<DropKind, AtomicLong> drops = new EnumMap<>(DropKind.class);
  private final AtomicLong packets = new AtomicLong();

  PacketCounters() {
    for (DropKind k : DropKind.values()) {
      drops.put(k, new AtomicLong());
    }
  }

  void count(DropKind kind) {
    of(kind).incrementAndGet();
  }

  void add(DropKind kind, long n) {
    of(kind).addAndGet(n);
  }

  private AtomicLong of(DropKind kind) {
    // The constructor put a counter for every kind.
    return Objects.requireNonNull(drops.get(kind));
  }

  /** One packet received from a socket, whatever became of it. */
  void packet() {
    packets.incrementAndGet();
  }

  long packets() {
    return packets.get();
  }

  /** Each kind's count now. */
  EnumMap<DropKind, Long> drops() {
    EnumMap<DropKind, Long> e = new EnumMap<>(DropKind.class);
    drops.forEach((k, v) -> e.put(k, v.get()));
    return e;
  }
}
