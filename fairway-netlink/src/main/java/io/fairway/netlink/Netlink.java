package io.fairway.netlink;

/**
 * Constants of the netlink and generic-netlink wire format ({@code linux/netlink.h}, {@code
 * linux/genetlink.h}). Kept in one place so the codec and the socket agree on them.
 */
public final class Netlink {
  private Netlink() {}

  /** {@code AF_NETLINK}. */
  public static final int AF_NETLINK = 16;

  /** {@code NETLINK_GENERIC}: the protocol of generic netlink sockets. */
  public static final int NETLINK_GENERIC = 16;

  /** Size of {@code struct nlmsghdr}: len u32, type u16, flags u16, seq u32, pid u32. */
  public static final int NLMSG_HDRLEN = 16;

  /** Size of {@code struct genlmsghdr}: cmd u8, version u8, reserved u16. */
  public static final int GENL_HDRLEN = 4;

  /** Size of {@code struct nlattr}: len u16, type u16. */
  public static final int NLA_HDRLEN = 4;

  public static final int NLMSG_NOOP = 1;
  public static final int NLMSG_ERROR = 2;
  public static final int NLMSG_DONE = 3;
  public static final int NLMSG_OVERRUN = 4;

  public static final int NLM_F_REQUEST = 0x1;
  public static final int NLM_F_MULTI = 0x2;
  public static final int NLM_F_ACK = 0x4;
  public static final int NLM_F_ROOT = 0x100;
  public static final int NLM_F_MATCH = 0x200;
  public static final int NLM_F_DUMP = NLM_F_ROOT | NLM_F_MATCH;

  /** In an NLMSG_ERROR ack: the request was capped to its header ({@code NETLINK_CAP_ACK}). */
  public static final int NLM_F_CAPPED = 0x100;

  /** In an NLMSG_ERROR ack: extended-ack attributes follow. */
  public static final int NLM_F_ACK_TLVS = 0x200;

  /** The nested-attribute flag bit of {@code nla_type}. */
  public static final int NLA_F_NESTED = 0x8000;

  /** The byte-order flag bit of {@code nla_type}. */
  public static final int NLA_F_NET_BYTEORDER = 0x4000;

  /** Mask of the attribute type proper. */
  public static final int NLA_TYPE_MASK = ~(NLA_F_NESTED | NLA_F_NET_BYTEORDER) & 0xffff;

  /** Extended-ack attribute: human-readable error message. */
  public static final int NLMSGERR_ATTR_MSG = 1;

  /** The generic-netlink controller's fixed family id ({@code GENL_ID_CTRL}). */
  public static final int GENL_ID_CTRL = 0x10;

  public static final int CTRL_CMD_NEWFAMILY = 1;
  public static final int CTRL_CMD_GETFAMILY = 3;
  public static final int CTRL_ATTR_FAMILY_ID = 1;
  public static final int CTRL_ATTR_FAMILY_NAME = 2;
  public static final int CTRL_ATTR_VERSION = 3;

  /** {@code SOL_NETLINK} socket option level. */
  public static final int SOL_NETLINK = 270;

  /** Acks carry only the request's header, not its whole payload. */
  public static final int NETLINK_CAP_ACK = 10;

  /** Acks may carry an error message ({@code NLMSGERR_ATTR_MSG}). */
  public static final int NETLINK_EXT_ACK = 11;

  /** Rounds up to netlink's 4-byte alignment. */
  public static int align(int n) {
    return (n + 3) & ~3;
  }
}
