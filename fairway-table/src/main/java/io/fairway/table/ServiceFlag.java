package io.fairway.table;

import java.util.EnumSet;
import java.util.Set;

/** Service flags, with the kernel's IP_VS_SVC_F_* bits. */
public enum ServiceFlag {
  /** Persistent service (set together with a timeout). */
  PERSISTENT(0x1),
  /** One-packet scheduling, UDP only ({@code ops}). */
  ONE_PACKET(0x4),
  /** Scheduler flag 1: {@code sh-fallback} / {@code mh-fallback} / {@code flag-1}. */
  SCHED1(0x8),
  /** Scheduler flag 2: {@code sh-port} / {@code mh-port} / {@code flag-2}. */
  SCHED2(0x10),
  /** Scheduler flag 3: {@code flag-3}. */
  SCHED3(0x20);

  /** The kernel-managed HASHED bit, which is never sent and ignored when read back. */
  public static final int HASHED_BIT = 0x2;

  private final int bit;

  ServiceFlag(int bit) {
    this.bit = bit;
  }

  public int bit() {
    return bit;
  }

  /** The bitmask of a set of flags. */
  public static int toBits(Set<ServiceFlag> flags) {
    int bits = 0;
    for (ServiceFlag f : flags) {
      bits |= f.bit;
    }
    return bits;
  }

  /** The flags in a bitmask; unknown bits (and HASHED) are ignored. */
  public static Set<ServiceFlag> fromBits(int bits) {
    EnumSet<ServiceFlag> set = EnumSet.noneOf(ServiceFlag.class);
    for (ServiceFlag f : values()) {
      if ((bits & f.bit) != 0) {
        set.add(f);
      }
    }
    return Set.copyOf(set);
  }
}
