package io.fairway.table;

/** Transport protocol of an address-based virtual service, with the kernel's IPPROTO numbers. */
public enum Protocol {
  TCP(6),
  UDP(17),
  SCTP(132);

  private final int number;

  Protocol(int number) {
    this.number = number;
  }

  /** The IPPROTO_* number the kernel uses. */
  public int number() {
    return number;
  }

  /** The protocol with the given IPPROTO number. */
  public static Protocol ofNumber(int number) {
    for (Protocol p : values()) {
      if (p.number == number) {
        return p;
      }
    }
    throw new IllegalArgumentException("unknown IP protocol number " + number);
  }
}
