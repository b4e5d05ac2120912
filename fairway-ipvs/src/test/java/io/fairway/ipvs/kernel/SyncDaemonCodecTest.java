package io.fairway.ipvs.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.fairway.netlink.Attributes;
import io.fairway.netlink.MalformedMessageException;
import io.fairway.netlink.MessageBuilder;
import io.fairway.netlink.Netlink;
import io.fairway.netlink.NetlinkMessage;
import io.fairway.table.SyncDaemon;
import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/**
 * The sync daemon requests and replies against the kernel's attribute layout (ip_vs_ctl.c:
 * ip_vs_daemon_policy, ip_vs_genl_new_daemon, ip_vs_genl_del_daemon, ip_vs_genl_fill_daemon), byte
 * for byte. Attributes are built here independently of MessageBuilder: type, host-order length,
 * payload, padding to 4.
 */
class SyncDaemonCodecTest {
  private static final int FAMILY = 28;

  /** One netlink attribute as the kernel lays it out (nla_put). */
  private static byte[] nla(int type, byte[] payload) {
    int len = 4 + payload.length;
    ByteBuffer b = ByteBuffer.allocate((len + 3) & ~3).order(ByteOrder.nativeOrder());
    b.putShort((short) len).putShort((short) type).put(payload);
    return b.array();
  }

  private static byte[] u32(int v) {
    return ByteBuffer.allocate(4).order(ByteOrder.nativeOrder()).putInt(v).array();
  }

  private static byte[] u16(int v) {
    return ByteBuffer.allocate(2).order(ByteOrder.nativeOrder()).putShort((short) v).array();
  }

  private static byte[] cat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }

  private static byte[] string(String s) {
    return Arrays.copyOf(s.getBytes(StandardCharsets.US_ASCII), s.length() + 1);
  }

  /** The one request's generic-netlink attribute bytes, after checking its headers. */
  private static byte[] request(MessageBuilder b, int cmd, int flags) {
    List<NetlinkMessage> ms = NetlinkMessage.parseAll(ByteBuffer.wrap(b.toByteArray()));
    assertThat(ms).hasSize(1);
    NetlinkMessage m = ms.get(0);
    assertThat(m.type()).isEqualTo(FAMILY);
    assertThat(m.flags()).isEqualTo(flags);
    assertThat(m.seq()).isEqualTo(5);
    assertThat(m.genlCommand()).isEqualTo(cmd);
    ByteBuffer p = m.payload().duplicate();
    p.position(p.position() + 4); // genlmsghdr: cmd, version, reserved
    byte[] attrs = new byte[p.remaining()];
    p.get(attrs);
    return attrs;
  }

  @Test
  void newDaemonWithDefaultsSendsTheThreeAttributesTheKernelRequires() {
    MessageBuilder b = new MessageBuilder();
    IpvsCodec.encodeNewDaemon(b, FAMILY, 5, SyncDaemon.of(SyncDaemon.Role.MASTER, "eth0", 51));
    byte[] inner = cat(nla(1, u32(1)), nla(2, string("eth0")), nla(3, u32(51)));
    assertThat(request(b, 9, Netlink.NLM_F_REQUEST | Netlink.NLM_F_ACK))
        .containsExactly(nla(3 | Netlink.NLA_F_NESTED, inner));
  }

  @Test
  void newDaemonWithEverySettingUsesTheKernelsTypesAndByteOrders() throws Exception {
    MessageBuilder b = new MessageBuilder();
    IpvsCodec.encodeNewDaemon(
        b,
        FAMILY,
        5,
        new SyncDaemon(
            SyncDaemon.Role.BACKUP,
            "br-lan",
            200,
            1400,
            8850,
            3,
            InetAddress.getByName("239.1.2.3")));
    byte[] inner =
        cat(
            nla(1, u32(2)),
            nla(2, string("br-lan")),
            nla(3, u32(200)),
            nla(4, u16(1400)), // SYNC_MAXLEN u16
            nla(5, new byte[] {(byte) 239, 1, 2, 3}), // MCAST_GROUP: in_addr, network order
            nla(7, u16(8850)), // MCAST_PORT u16, host order (the kernel htons()es it)
            nla(8, new byte[] {3})); // MCAST_TTL u8
    assertThat(request(b, 9, Netlink.NLM_F_REQUEST | Netlink.NLM_F_ACK))
        .containsExactly(nla(3 | Netlink.NLA_F_NESTED, inner));
  }

  @Test
  void anIpv6GroupGoesInGroup6() throws Exception {
    MessageBuilder b = new MessageBuilder();
    InetAddress g = InetAddress.getByName("ff02::81");
    IpvsCodec.encodeNewDaemon(
        b, FAMILY, 5, new SyncDaemon(SyncDaemon.Role.MASTER, "eth0", 0, 0, 0, 0, g));
    byte[] inner =
        cat(nla(1, u32(1)), nla(2, string("eth0")), nla(3, u32(0)), nla(6, g.getAddress()));
    assertThat(request(b, 9, Netlink.NLM_F_REQUEST | Netlink.NLM_F_ACK))
        .containsExactly(nla(3 | Netlink.NLA_F_NESTED, inner));
  }

  @Test
  void delDaemonSendsTheStateOnly() {
    MessageBuilder b = new MessageBuilder();
    IpvsCodec.encodeDelDaemon(b, FAMILY, 5, SyncDaemon.Role.BACKUP);
    assertThat(request(b, 10, Netlink.NLM_F_REQUEST | Netlink.NLM_F_ACK))
        .containsExactly(nla(3 | Netlink.NLA_F_NESTED, nla(1, u32(2))));
  }

  @Test
  void getDaemonIsADumpWithoutAttributes() {
    MessageBuilder b = new MessageBuilder();
    IpvsCodec.encodeDaemonDump(b, FAMILY, 5);
    assertThat(request(b, 11, Netlink.NLM_F_REQUEST | Netlink.NLM_F_DUMP)).isEmpty();
  }

  /** A GET_DAEMON reply's attributes as ip_vs_genl_fill_daemon writes them. */
  private static Attributes reply(byte[]... inner) {
    return Attributes.parse(ByteBuffer.wrap(nla(3, cat(inner))));
  }

  @Test
  void aKernelReplyDecodesWithEveryFieldFilledIn() throws Exception {
    SyncDaemon d =
        IpvsCodec.decodeDaemon(
            reply(
                nla(1, u32(1)),
                nla(2, string("eth0")),
                nla(3, u32(51)),
                nla(4, u16(1472)),
                nla(7, u16(8848)),
                nla(8, new byte[] {1}),
                nla(5, new byte[] {(byte) 224, 0, 0, 81})));
    assertThat(d)
        .isEqualTo(
            new SyncDaemon(
                SyncDaemon.Role.MASTER,
                "eth0",
                51,
                1472,
                8848,
                1,
                InetAddress.getByName("224.0.0.81")));
    assertThat(d.ipvsadmLine())
        .isEqualTo(
            "master sync daemon (mcast=eth0, syncid=51, "
                + "maxlen=1472, group=224.0.0.81, port=8848, ttl=1)");
  }

  @Test
  void whatIsEncodedDecodesBack() throws Exception {
    SyncDaemon d =
        new SyncDaemon(
            SyncDaemon.Role.BACKUP, "eth1", 7, 1400, 9000, 4, InetAddress.getByName("ff05::1:3"));
    MessageBuilder b = new MessageBuilder();
    IpvsCodec.encodeNewDaemon(b, FAMILY, 5, d);
    NetlinkMessage m = NetlinkMessage.parseAll(ByteBuffer.wrap(b.toByteArray())).get(0);
    assertThat(IpvsCodec.decodeDaemon(m.genlAttributes())).isEqualTo(d);
  }

  @Test
  void malformedRepliesAreMalformedMessageExceptions() {
    List<Attributes> bad =
        List.of(
            Attributes.parse(ByteBuffer.allocate(0)), // no DAEMON nest
            reply(nla(2, string("eth0")), nla(3, u32(1))), // no state
            reply(nla(1, u32(3)), nla(2, string("eth0"))), // state neither master nor backup
            reply(nla(1, u32(1))), // no interface
            reply(nla(1, u32(1)), nla(2, string(""))), // empty interface
            reply(nla(1, u32(1)), nla(2, string("averyveryverylongname"))),
            reply(nla(1, u32(1)), nla(2, string("eth0")), nla(3, u32(256))), // syncid past a byte
            reply(nla(1, u32(1)), nla(2, string("eth0")), nla(3, u32(-1))),
            reply(nla(1, u16(1)), nla(2, string("eth0"))), // short state
            reply(nla(1, u32(1)), nla(2, string("eth0")), nla(5, new byte[] {10, 0, 0, 1})),
            reply(nla(1, u32(1)), nla(2, string("eth0")), nla(6, new byte[] {(byte) 0xff, 2})),
            reply(nla(1, u32(1)), nla(2, string("eth0")), nla(8, new byte[0])));
    for (Attributes a : bad) {
      assertThat(catchThrowable(() -> IpvsCodec.decodeDaemon(a)))
          .isInstanceOf(MalformedMessageException.class)
          .message()
          .startsWith("sync daemon")
          .doesNotContain("\n");
    }
  }

  @Property(tries = 2000)
  void anyBytesGiveADaemonOrTheDocumentedException(@ForAll @Size(max = 96) byte[] inner) {
    try {
      Attributes a = Attributes.parse(ByteBuffer.wrap(nla(3, inner)));
      SyncDaemon d = IpvsCodec.decodeDaemon(a);
      assertThat(d.interfaceName()).isNotEmpty();
    } catch (MalformedMessageException e) {
      assertThat(e.getMessage()).isNotBlank();
    }
  }
}
