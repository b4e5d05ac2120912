package io.fairway.table;

/** How packets reach a destination, with the kernel's IP_VS_CONN_F_* forwarding values. */
public enum ForwardingMethod {
  /** NAT ({@code lb_kind NAT}); ipvsadm prints "Masq". */
  MASQ(0, "Masq"),
  /** Local node; ipvsadm prints "Local". */
  LOCALNODE(1, "Local"),
  /** IP tunnelling ({@code lb_kind TUN}). */
  TUNNEL(2, "Tunnel"),
  /** Direct routing ({@code lb_kind DR}). */
  DROUTE(3, "Route"),
  /** Cache bypass. */
  BYPASS(4, "Bypass");

  private final int value;
  private final String ipvsadmName;

  ForwardingMethod(int value, String ipvsadmName) {
    this.value = value;
    this.ipvsadmName = ipvsadmName;
  }

  public int value() {
    return value;
  }

  /** The word ipvsadm -L prints in its Forward column. */
  public String ipvsadmName() {
    return ipvsadmName;
  }

  public static ForwardingMethod ofValue(int value) {
    for (ForwardingMethod m : values()) {
      if (m.value == (value & 7)) {
        return m;
      }
    }
    throw new IllegalArgumentException("unknown forwarding method " + value);
  }
}
