package io.fairway.ipvs.kernel;

import io.fairway.netlink.Attributes;
import io.fairway.netlink.GenericNetlink;
import io.fairway.netlink.MalformedMessageException;
import io.fairway.netlink.MessageBuilder;
import io.fairway.netlink.NetlinkException;
import io.fairway.netlink.NetlinkMessage;
import io.fairway.table.Dest;
import io.fairway.table.DestEntry;
import io.fairway.table.DestKey;
import io.fairway.table.Service;
import io.fairway.table.ServiceEntry;
import io.fairway.table.ServiceKey;
import io.fairway.table.SyncDaemon;
import io.fairway.table.SyncDaemonControl;
import io.fairway.table.Table;
import io.fairway.table.TableErrors;
import io.fairway.table.TableException;
import io.fairway.table.TableOp;
import io.fairway.table.TimeoutControl;
import io.fairway.table.Timeouts;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalInt;
import org.jspecify.annotations.Nullable;

/**
 * The Linux kernel's IPVS table, over generic netlink. Speaks to the {@code IPVS} family directly,
 * the way {@code ipvsadm} and keepalived's libipvs do, without shelling out.
 *
 * <p>Batches: {@link #apply(List)} packs many requests into one datagram and reads their acks in
 * bulk. The kernel handles the requests of a datagram in order and acks each, failures included, so
 * a batch has the same effect as the same calls one by one, at a fraction of the round trips:
 * installing ten thousand destinations is a few dozen system calls instead of twenty thousand.
 *
 * <p>Not thread-safe; the apply layer serialises.
 */
public final class IpvsKernelTable implements Table, TimeoutControl, SyncDaemonControl {
  /** The one line shown when the kernel has no IPVS. */
  public static final String NO_IPVS =
      "this kernel has no IPVS (generic netlink family IPVS not found); use --userspace";

  /** Requests per datagram. Their acks must fit the receive buffer, which is sized for this. */
  static final int BATCH_MESSAGES = 1024;

  /**
   * Bytes per datagram: under the default {@code wmem_max} (212992), so a batch still fits when the
   * forced 8 MiB send buffer was refused.
   */
  static final int BATCH_BYTES = 192 * 1024;

  private static final int KERNEL_BUFFER = 8 * 1024 * 1024;
  private static final int TIMEOUT_MILLIS = 10_000;

  private final GenericNetlink genl;
  private final int family;
  private final MessageBuilder builder = new MessageBuilder(BATCH_BYTES + 4096);

  private IpvsKernelTable(GenericNetlink genl, int family) {
    this.genl = genl;
    this.family = family;
  }

  /**
   * Opens the kernel table.
   *
   * @throws TableException {@link TableException.Reason#UNAVAILABLE} with {@link #NO_IPVS} when the
   *     kernel has no IPVS, {@code PERMISSION} without CAP_NET_ADMIN
   */
  public static IpvsKernelTable open() throws TableException {
    GenericNetlink genl;
    try {
      genl = GenericNetlink.open(KERNEL_BUFFER, TIMEOUT_MILLIS);
    } catch (IOException e) {
      throw new TableException(
          TableException.Reason.UNAVAILABLE,
          "cannot open a generic netlink socket: " + e.getMessage(),
          e);
    } catch (UnsatisfiedLinkError | NoClassDefFoundError e) {
      throw new TableException(
          TableException.Reason.UNAVAILABLE, "cannot load libc through JNA: " + e.getMessage(), e);
    }
    try {
      OptionalInt id = genl.resolveFamily(Ipvs.FAMILY);
      if (id.isEmpty()) {
        genl.close();
        throw new TableException(TableException.Reason.UNAVAILABLE, NO_IPVS);
      }
      IpvsKernelTable t = new IpvsKernelTable(genl, id.getAsInt());
      t.info(); // fails now, with EPERM, rather than on the first change
      return t;
    } catch (IOException e) {
      genl.close();
      throw new TableException(
          TableException.Reason.UNAVAILABLE,
          "cannot resolve the IPVS netlink family: " + e.getMessage(),
          e);
    } catch (TableException e) {
      genl.close();
      throw e;
    }
  }

  /** Version and connection-table size, as ipvsadm's first line shows them. */
  public record Info(int version, int connTableSize) {
    /** {@code IP Virtual Server version 1.2.1 (size=4096)}. */
    public String headerLine() {
      return "IP Virtual Server version "
          + ((version >> 16) & 0xff)
          + "."
          + ((version >> 8) & 0xff)
          + "."
          + (version & 0xff)
          + " (size="
          + connTableSize
          + ")";
    }
  }

  /** GET_INFO: the IPVS version and connection-table size. */
  public Info info() throws TableException {
    int seq = genl.nextSeq();
    builder.reset();
    IpvsCodec.encodeGetInfo(builder, family, seq);
    try {
      for (NetlinkMessage m : genl.request(builder.toByteArray(), seq)) {
        Attributes a = m.genlAttributes();
        return new Info(a.u32(Ipvs.INFO_ATTR_VERSION, 0), a.u32(Ipvs.INFO_ATTR_CONN_TAB_SIZE, 0));
      }
      throw new TableException(TableException.Reason.OTHER, "IPVS GET_INFO: no reply");
    } catch (NetlinkException e) {
      throw failure("IPVS info", e);
    } catch (IOException | MalformedMessageException e) {
      throw new TableException(TableException.Reason.OTHER, "IPVS info: " + e.getMessage(), e);
    }
  }

  /** GET_CONFIG: the connection-state timeouts in force ({@code ipvsadm -L --timeout}). */
  @Override
  public Timeouts timeouts() throws TableException {
    int seq = genl.nextSeq();
    builder.reset();
    IpvsCodec.encodeGetConfig(builder, family, seq);
    try {
      for (NetlinkMessage m : genl.request(builder.toByteArray(), seq)) {
        return IpvsCodec.decodeTimeouts(m.genlAttributes());
      }
      throw new TableException(TableException.Reason.OTHER, "IPVS timeouts: no reply");
    } catch (NetlinkException e) {
      throw failure("IPVS timeouts", e);
    } catch (IOException | MalformedMessageException e) {
      throw new TableException(TableException.Reason.OTHER, "IPVS timeouts: " + e.getMessage(), e);
    }
  }

  /** SET_CONFIG with the non-zero fields ({@code ipvsadm --set}); zero fields are left alone. */
  @Override
  public void setTimeouts(Timeouts timeouts) throws TableException {
    if (timeouts.isEmpty()) {
      return;
    }
    int seq = genl.nextSeq();
    builder.reset();
    IpvsCodec.encodeSetConfig(builder, family, seq, timeouts);
    try {
      genl.request(builder.toByteArray(), seq);
    } catch (NetlinkException e) {
      if (e.errno() == TableErrors.EINVAL) {
        // ip_vs_set_timeout refuses a value above INT_MAX / HZ seconds.
        throw new TableException(
            TableException.Reason.INVALID,
            e.errno(),
            "IPVS set timeouts "
                + timeouts.tcp()
                + " "
                + timeouts.tcpFin()
                + " "
                + timeouts.udp()
                + ": refused: a timeout is too large for this kernel (EINVAL)");
      }
      throw failure("IPVS set timeouts", e);
    } catch (IOException e) {
      throw new TableException(
          TableException.Reason.OTHER, "IPVS set timeouts: " + e.getMessage(), e);
    }
  }

  /** GET_DAEMON: the sync daemons running ({@code ipvsadm -L --daemon}). */
  @Override
  public List<SyncDaemon> syncDaemons() throws TableException {
    int seq = genl.nextSeq();
    builder.reset();
    IpvsCodec.encodeDaemonDump(builder, family, seq);
    try {
      List<SyncDaemon> out = new ArrayList<>(2);
      for (NetlinkMessage m : genl.dump(builder.toByteArray(), seq)) {
        out.add(IpvsCodec.decodeDaemon(m.genlAttributes()));
      }
      return out;
    } catch (NetlinkException e) {
      throw failure("IPVS sync daemons", e);
    } catch (IOException | MalformedMessageException e) {
      throw new TableException(
          TableException.Reason.OTHER, "IPVS sync daemons: " + e.getMessage(), e);
    }
  }

  /** NEW_DAEMON ({@code ipvsadm --start-daemon}). */
  @Override
  public void startSyncDaemon(SyncDaemon d) throws TableException {
    int seq = genl.nextSeq();
    builder.reset();
    IpvsCodec.encodeNewDaemon(builder, family, seq, d);
    String what = "IPVS start " + d.role().word() + " sync daemon on " + d.interfaceName();
    try {
      genl.request(builder.toByteArray(), seq);
    } catch (NetlinkException e) {
      throw switch (e.errno()) {
        case TableErrors.EEXIST ->
            new TableException(
                TableException.Reason.EXISTS,
                e.errno(),
                what + ": a " + d.role().word() + " sync daemon is running already (EEXIST)");
        case ENODEV ->
            new TableException(
                TableException.Reason.NOT_FOUND, e.errno(), what + ": no such interface (ENODEV)");
        case TableErrors.EINVAL ->
            new TableException(
                TableException.Reason.INVALID,
                e.errno(),
                what
                    + ": refused (EINVAL; a service with destinations of another address family"
                    + " cannot be synchronised)");
        default -> failure(what, e);
      };
    } catch (IOException e) {
      throw new TableException(TableException.Reason.OTHER, what + ": " + e.getMessage(), e);
    }
  }

  /** DEL_DAEMON ({@code ipvsadm --stop-daemon}). */
  @Override
  public void stopSyncDaemon(SyncDaemon.Role role) throws TableException {
    int seq = genl.nextSeq();
    builder.reset();
    IpvsCodec.encodeDelDaemon(builder, family, seq, role);
    String what = "IPVS stop " + role.word() + " sync daemon";
    try {
      genl.request(builder.toByteArray(), seq);
    } catch (NetlinkException e) {
      if (e.errno() == TableErrors.ESRCH) {
        throw new TableException(
            TableException.Reason.NO_SERVICE, e.errno(), what + ": none is running (ESRCH)");
      }
      throw failure(what, e);
    } catch (IOException e) {
      throw new TableException(TableException.Reason.OTHER, what + ": " + e.getMessage(), e);
    }
  }

  private static final int ENODEV = 19;

  @Override
  public void addService(Service service) throws TableException {
    one(new TableOp.AddService(service));
  }

  @Override
  public void setService(Service service) throws TableException {
    one(new TableOp.SetService(service));
  }

  @Override
  public void delService(ServiceKey key) throws TableException {
    one(new TableOp.DelService(key));
  }

  @Override
  public void addDest(ServiceKey service, Dest dest) throws TableException {
    one(new TableOp.AddDest(service, dest));
  }

  @Override
  public void setDest(ServiceKey service, Dest dest) throws TableException {
    one(new TableOp.SetDest(service, dest));
  }

  @Override
  public void delDest(ServiceKey service, DestKey dest) throws TableException {
    one(new TableOp.DelDest(service, dest));
  }

  @Override
  public void flush() throws TableException {
    one(new TableOp.Flush());
  }

  private void one(TableOp op) throws TableException {
    @Nullable TableException e = apply(List.of(op)).get(0);
    if (e != null) {
      throw e;
    }
  }

  /**
   * Sends the operations in as few datagrams as fit ({@value #BATCH_MESSAGES} requests or {@value
   * #BATCH_BYTES} bytes each) and maps every ack back to its operation.
   */
  @Override
  public List<@Nullable TableException> apply(List<TableOp> ops) {
    @Nullable TableException[] results = new TableException[ops.size()];
    int i = 0;
    while (i < ops.size()) {
      builder.reset();
      int first = i;
      int firstSeq = genl.reserveSeqs(Math.min(BATCH_MESSAGES, ops.size() - i));
      while (i < ops.size() && i - first < BATCH_MESSAGES && builder.size() < BATCH_BYTES) {
        IpvsCodec.encode(builder, family, firstSeq + (i - first), ops.get(i));
        i++;
      }
      int count = i - first;
      try {
        GenericNetlink.Ack[] acks =
            genl.batch(builder.toByteArray(), builder.size(), firstSeq, count);
        for (int k = 0; k < count; k++) {
          if (!acks[k].ok()) {
            results[first + k] =
                TableErrors.of(acks[k].errno(), ops.get(first + k), acks[k].message());
          }
        }
      } catch (IOException e) {
        for (int k = first; k < ops.size(); k++) {
          results[k] =
              new TableException(
                  TableException.Reason.OTHER,
                  TableErrors.subject(ops.get(k)) + ": netlink I/O failed: " + e.getMessage(),
                  e);
        }
        break;
      }
    }
    return Arrays.asList(results);
  }

  @Override
  public List<ServiceEntry> list() throws TableException {
    try {
      int seq = genl.nextSeq();
      builder.reset();
      IpvsCodec.encodeServiceDump(builder, family, seq);
      List<NetlinkMessage> services = genl.dump(builder.toByteArray(), seq);
      List<ServiceEntry> out = new ArrayList<>(services.size());
      for (NetlinkMessage m : services) {
        Attributes svc = m.genlAttributes().nested(Ipvs.CMD_ATTR_SERVICE);
        Service service = IpvsCodec.decodeService(svc);
        out.add(new ServiceEntry(service, dests(service.key()), IpvsCodec.serviceStats(svc)));
      }
      return out;
    } catch (NetlinkException e) {
      throw failure("IPVS list", e);
    } catch (IOException | MalformedMessageException | IllegalArgumentException e) {
      throw new TableException(TableException.Reason.OTHER, "IPVS list: " + e.getMessage(), e);
    }
  }

  private List<DestEntry> dests(ServiceKey key) throws IOException {
    int seq = genl.nextSeq();
    builder.reset();
    IpvsCodec.encodeDestDump(builder, family, seq, key);
    List<DestEntry> out = new ArrayList<>();
    try {
      for (NetlinkMessage m : genl.dump(builder.toByteArray(), seq)) {
        out.add(IpvsCodec.decodeDest(m.genlAttributes().nested(Ipvs.CMD_ATTR_DEST), key.family()));
      }
    } catch (GenericNetlink.KernelError e) {
      if (e.errno() == TableErrors.ESRCH) {
        return List.of(); // deleted between the two dumps
      }
      throw e;
    }
    return out;
  }

  private static TableException failure(String what, NetlinkException e) {
    if (e.errno() == TableErrors.EPERM) {
      return new TableException(
          TableException.Reason.PERMISSION,
          TableErrors.EPERM,
          what + ": permission denied: managing IPVS needs CAP_NET_ADMIN (EPERM)");
    }
    return new TableException(
        TableErrors.reason(e.errno()), e.errno(), what + ": " + e.getMessage());
  }

  @Override
  public void close() {
    genl.close();
  }
}
