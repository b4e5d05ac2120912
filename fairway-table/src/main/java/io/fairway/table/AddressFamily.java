package io.fairway.table;

import java.net.Inet6Address;
import java.net.InetAddress;

/** Address family with the kernel's AF_* numbers. */
public enum AddressFamily {
  INET(2),
  INET6(10);

  private final int number;

  AddressFamily(int number) {
    this.number = number;
  }

  /** The AF_* number the kernel uses. */
  public int number() {
    return number;
  }

  /** The family of an address. */
  public static AddressFamily of(InetAddress address) {
    return address instanceof Inet6Address ? INET6 : INET;
  }

  /** The family with the given AF number. */
  public static AddressFamily ofNumber(int number) {
    for (AddressFamily f : values()) {
      if (f.number == number) {
        return f;
      }
    }
    throw new IllegalArgumentException("unknown address family " + number);
  }
}
