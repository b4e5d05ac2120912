package io.fairway.ipvs.kernel;

/** IPVS generic-netlink numbers ({@code include/uapi/linux/ip_vs.h}). */
final class Ipvs {
  private Ipvs() {}

  static final String FAMILY = "IPVS";
  static final int VERSION = 1;

  static final int CMD_NEW_SERVICE = 1;
  static final int CMD_SET_SERVICE = 2;
  static final int CMD_DEL_SERVICE = 3;
  static final int CMD_GET_SERVICE = 4;
  static final int CMD_NEW_DEST = 5;
  static final int CMD_SET_DEST = 6;
  static final int CMD_DEL_DEST = 7;
  static final int CMD_GET_DEST = 8;
  static final int CMD_NEW_DAEMON = 9;
  static final int CMD_DEL_DAEMON = 10;
  static final int CMD_GET_DAEMON = 11;
  static final int CMD_SET_CONFIG = 12;
  static final int CMD_GET_CONFIG = 13;
  static final int CMD_SET_INFO = 14;
  static final int CMD_GET_INFO = 15;
  static final int CMD_ZERO = 16;
  static final int CMD_FLUSH = 17;

  static final int CMD_ATTR_SERVICE = 1;
  static final int CMD_ATTR_DEST = 2;
  static final int CMD_ATTR_DAEMON = 3;
  static final int CMD_ATTR_TIMEOUT_TCP = 4;
  static final int CMD_ATTR_TIMEOUT_TCP_FIN = 5;
  static final int CMD_ATTR_TIMEOUT_UDP = 6;

  static final int SVC_ATTR_AF = 1;
  static final int SVC_ATTR_PROTOCOL = 2;
  static final int SVC_ATTR_ADDR = 3;
  static final int SVC_ATTR_PORT = 4;
  static final int SVC_ATTR_FWMARK = 5;
  static final int SVC_ATTR_SCHED_NAME = 6;
  static final int SVC_ATTR_FLAGS = 7;
  static final int SVC_ATTR_TIMEOUT = 8;
  static final int SVC_ATTR_NETMASK = 9;
  static final int SVC_ATTR_STATS = 10;
  static final int SVC_ATTR_PE_NAME = 11;
  static final int SVC_ATTR_STATS64 = 12;

  static final int DEST_ATTR_ADDR = 1;
  static final int DEST_ATTR_PORT = 2;
  static final int DEST_ATTR_FWD_METHOD = 3;
  static final int DEST_ATTR_WEIGHT = 4;
  static final int DEST_ATTR_U_THRESH = 5;
  static final int DEST_ATTR_L_THRESH = 6;
  static final int DEST_ATTR_ACTIVE_CONNS = 7;
  static final int DEST_ATTR_INACT_CONNS = 8;
  static final int DEST_ATTR_PERSIST_CONNS = 9;
  static final int DEST_ATTR_STATS = 10;
  static final int DEST_ATTR_ADDR_FAMILY = 11;
  static final int DEST_ATTR_STATS64 = 12;
  static final int DEST_ATTR_TUN_TYPE = 13;
  static final int DEST_ATTR_TUN_PORT = 14;
  static final int DEST_ATTR_TUN_FLAGS = 15;

  static final int STATS_ATTR_CONNS = 1;
  static final int STATS_ATTR_INPKTS = 2;
  static final int STATS_ATTR_OUTPKTS = 3;
  static final int STATS_ATTR_INBYTES = 4;
  static final int STATS_ATTR_OUTBYTES = 5;
  static final int STATS_ATTR_CPS = 6;
  static final int STATS_ATTR_INPPS = 7;
  static final int STATS_ATTR_OUTPPS = 8;
  static final int STATS_ATTR_INBPS = 9;
  static final int STATS_ATTR_OUTBPS = 10;

  /** Inside CMD_ATTR_DAEMON (ip_vs_daemon_policy in ip_vs_ctl.c gives the types). */
  static final int DAEMON_ATTR_STATE = 1; // u32: IP_VS_STATE_MASTER 1, _BACKUP 2

  static final int DAEMON_ATTR_MCAST_IFN = 2; // NUL-terminated string, at most 15 bytes
  static final int DAEMON_ATTR_SYNC_ID = 3; // u32
  static final int DAEMON_ATTR_SYNC_MAXLEN = 4; // u16
  static final int DAEMON_ATTR_MCAST_GROUP = 5; // u32, the address in network order
  static final int DAEMON_ATTR_MCAST_GROUP6 = 6; // 16 bytes
  static final int DAEMON_ATTR_MCAST_PORT = 7; // u16, host order
  static final int DAEMON_ATTR_MCAST_TTL = 8; // u8

  static final int INFO_ATTR_VERSION = 1;
  static final int INFO_ATTR_CONN_TAB_SIZE = 2;
}
