package io.fairway.ipvs.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.ipvs.uml.KernelScenarioMain;
import io.fairway.netlink.Attributes;
import io.fairway.netlink.MessageBuilder;
import io.fairway.netlink.Netlink;
import io.fairway.netlink.NetlinkMessage;
import io.fairway.table.AddressFamily;
import io.fairway.table.Dest;
import io.fairway.table.DestEntry;
import io.fairway.table.ForwardingMethod;
import io.fairway.table.Protocol;
import io.fairway.table.Service;
import io.fairway.table.ServiceFlag;
import io.fairway.table.ServiceKey;
import io.fairway.table.TableOp;
import io.fairway.table.Tunnel;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The IPVS codec on bytes: requests checked field by field against the kernel's wire format, and
 * replies captured from a real kernel (user-mode Linux 6.1, by {@link KernelScenarioMain}) decoded
 * back into the table it installed.
 */
class IpvsCodecTest {
  private static final int FAMILY = 28;

  private static Attributes encoded(TableOp op) {
    MessageBuilder b = new MessageBuilder();
    IpvsCodec.encode(b, FAMILY, 77, op);
    List<NetlinkMessage> ms = NetlinkMessage.parseAll(ByteBuffer.wrap(b.toByteArray()));
    assertThat(ms).hasSize(1);
    assertThat(ms.get(0).type()).isEqualTo(FAMILY);
    assertThat(ms.get(0).flags()).isEqualTo(Netlink.NLM_F_REQUEST | Netlink.NLM_F_ACK);
    assertThat(ms.get(0).seq()).isEqualTo(77);
    return ms.get(0).genlAttributes();
  }

  @Test
  void anIpv4ServiceGoesOutWithNetworkOrderPortAndMask() throws Exception {
    ServiceKey k = ServiceKey.of(Protocol.TCP, InetAddress.getByName("10.16.0.1"), 8080);
    Service s =
        new Service(k, "wlc", Set.of(ServiceFlag.PERSISTENT, ServiceFlag.SCHED2), 300, 24, null);
    Attributes svc = encoded(new TableOp.AddService(s)).nested(Ipvs.CMD_ATTR_SERVICE);
    assertThat(svc.u16(Ipvs.SVC_ATTR_AF)).isEqualTo(2);
    assertThat(svc.u16(Ipvs.SVC_ATTR_PROTOCOL)).isEqualTo(6);
    assertThat(svc.bytes(Ipvs.SVC_ATTR_ADDR)).hasSize(16).startsWith(10, 16, 0, 1);
    assertThat(svc.bytes(Ipvs.SVC_ATTR_PORT)).containsExactly(0x1f, 0x90);
    assertThat(svc.string(Ipvs.SVC_ATTR_SCHED_NAME)).isEqualTo("wlc");
    ByteBuffer flags =
        ByteBuffer.wrap(svc.bytes(Ipvs.SVC_ATTR_FLAGS)).order(ByteOrder.nativeOrder());
    assertThat(flags.getInt(0)).isEqualTo(0x1 | 0x10);
    assertThat(flags.getInt(4)).isEqualTo(0xffffffff);
    assertThat(svc.u32(Ipvs.SVC_ATTR_TIMEOUT)).isEqualTo(300);
    assertThat(svc.bytes(Ipvs.SVC_ATTR_NETMASK)).containsExactly(0xff, 0xff, 0xff, 0x00);
    assertThat(svc.has(Ipvs.SVC_ATTR_PE_NAME)).isFalse();
  }

  @Test
  void anIpv6ServiceSendsItsPrefixLengthInHostOrder() throws Exception {
    ServiceKey k = ServiceKey.of(Protocol.UDP, InetAddress.getByName("2001:db8::1"), 5060);
    Service s = new Service(k, "rr", Set.of(ServiceFlag.PERSISTENT), 60, 64, "sip");
    Attributes svc = encoded(new TableOp.SetService(s)).nested(Ipvs.CMD_ATTR_SERVICE);
    assertThat(svc.u16(Ipvs.SVC_ATTR_AF)).isEqualTo(10);
    assertThat(svc.u32(Ipvs.SVC_ATTR_NETMASK)).isEqualTo(64);
    assertThat(svc.string(Ipvs.SVC_ATTR_PE_NAME)).isEqualTo("sip");
    assertThat(IpvsCodec.decodeService(svc)).isEqualTo(s);
  }

  @Test
  void aFwmarkServiceIsIdentifiedByMarkAndFamilyOnly() {
    Attributes svc =
        encoded(new TableOp.DelService(ServiceKey.fwmark(AddressFamily.INET6, 7)))
            .nested(Ipvs.CMD_ATTR_SERVICE);
    assertThat(svc.u32(Ipvs.SVC_ATTR_FWMARK)).isEqualTo(7);
    assertThat(svc.u16(Ipvs.SVC_ATTR_AF)).isEqualTo(10);
    assertThat(svc.has(Ipvs.SVC_ATTR_ADDR)).isFalse();
    assertThat(svc.has(Ipvs.SVC_ATTR_SCHED_NAME)).isFalse();
  }

  @Test
  void aTunnelDestinationCarriesItsEncapsulation() throws Exception {
    ServiceKey k = ServiceKey.of(Protocol.TCP, InetAddress.getByName("10.16.0.1"), 80);
    Dest d =
        new Dest(
            InetAddress.getByName("2001:db8::3"),
            80,
            ForwardingMethod.TUNNEL,
            3,
            100,
            10,
            new Tunnel(Tunnel.Type.GUE, 6080, Tunnel.Checksum.REMCSUM));
    Attributes a = encoded(new TableOp.AddDest(k, d));
    Attributes dest = a.nested(Ipvs.CMD_ATTR_DEST);
    assertThat(a.nested(Ipvs.CMD_ATTR_SERVICE).has(Ipvs.SVC_ATTR_SCHED_NAME)).isFalse();
    assertThat(dest.u16(Ipvs.DEST_ATTR_ADDR_FAMILY)).isEqualTo(10);
    assertThat(dest.u32(Ipvs.DEST_ATTR_FWD_METHOD)).isEqualTo(2);
    assertThat(dest.u8(Ipvs.DEST_ATTR_TUN_TYPE)).isEqualTo(1);
    assertThat(dest.bytes(Ipvs.DEST_ATTR_TUN_PORT)).containsExactly(0x17, 0xc0);
    assertThat(dest.u16(Ipvs.DEST_ATTR_TUN_FLAGS)).isEqualTo(2);
    assertThat(dest.u32(Ipvs.DEST_ATTR_U_THRESH)).isEqualTo(100);
    assertThat(dest.u32(Ipvs.DEST_ATTR_L_THRESH)).isEqualTo(10);
    assertThat(IpvsCodec.decodeDest(dest, AddressFamily.INET).dest()).isEqualTo(d);
  }

  @Test
  void aDeleteSendsOnlyTheDestinationsIdentity() throws Exception {
    ServiceKey k = ServiceKey.fwmark(AddressFamily.INET, 1);
    Attributes dest =
        encoded(
                new TableOp.DelDest(
                    k, new io.fairway.table.DestKey(InetAddress.getByName("10.16.1.1"), 0)))
            .nested(Ipvs.CMD_ATTR_DEST);
    assertThat(dest.has(Ipvs.DEST_ATTR_ADDR)).isTrue();
    assertThat(dest.has(Ipvs.DEST_ATTR_WEIGHT)).isFalse();
  }

  @Test
  void prefixAndMaskConvert() {
    assertThat(IpvsCodec.prefixToMask(32)).isEqualTo(0xffffffff);
    assertThat(IpvsCodec.prefixToMask(24)).isEqualTo(0xffffff00);
    assertThat(IpvsCodec.prefixToMask(0)).isZero();
    for (int p = 0; p <= 32; p++) {
      assertThat(IpvsCodec.maskToPrefix(IpvsCodec.prefixToMask(p))).isEqualTo(p);
    }
  }

  // --- replies captured from the kernel ---

  private static List<NetlinkMessage> replies(String resource) throws IOException {
    List<NetlinkMessage> out = new ArrayList<>();
    try (InputStream in = IpvsCodecTest.class.getResourceAsStream("/captured/" + resource)) {
      for (String line : new String(in.readAllBytes(), StandardCharsets.US_ASCII).split("\n")) {
        if (line.startsWith("< ")) {
          out.addAll(
              NetlinkMessage.parseAll(
                  ByteBuffer.wrap(HexFormat.of().parseHex(line.substring(2).trim()))));
        }
      }
    }
    return out;
  }

  private static <T> List<T> ofType(List<TableOp> ops, Class<T> type) {
    return ops.stream().filter(type::isInstance).map(type::cast).toList();
  }

  @Test
  void aCapturedServiceDumpDecodesToTheServicesThatWereInstalled() throws Exception {
    List<NetlinkMessage> ms = replies("capture-services.hex");
    assertThat(ms.get(ms.size() - 1).isDone()).isTrue();
    List<Service> decoded = new ArrayList<>();
    for (NetlinkMessage m : ms.subList(0, ms.size() - 1)) {
      assertThat(m.type()).isEqualTo(FAMILY);
      assertThat(m.flags() & Netlink.NLM_F_MULTI).isNotZero();
      assertThat(m.genlCommand()).isEqualTo(Ipvs.CMD_NEW_SERVICE);
      Attributes svc = m.genlAttributes().nested(Ipvs.CMD_ATTR_SERVICE);
      decoded.add(IpvsCodec.decodeService(svc));
      assertThat(IpvsCodec.serviceStats(svc).connections()).isZero();
    }
    List<Service> installed =
        ofType(KernelScenarioMain.sampleTable(), TableOp.AddService.class).stream()
            .map(TableOp.AddService::service)
            .toList();
    assertThat(decoded).containsExactlyInAnyOrderElementsOf(installed);
  }

  @Test
  void aCapturedDestinationDumpDecodesToTheDestinationsThatWereInstalled() throws Exception {
    List<NetlinkMessage> ms = replies("capture-dests6.hex");
    ServiceKey web6 = ServiceKey.of(Protocol.TCP, InetAddress.getByName("2001:db8::1"), 80);
    List<Dest> decoded = new ArrayList<>();
    for (NetlinkMessage m : ms) {
      if (m.isDone()) {
        continue;
      }
      assertThat(m.genlCommand()).isEqualTo(Ipvs.CMD_NEW_DEST);
      DestEntry e =
          IpvsCodec.decodeDest(m.genlAttributes().nested(Ipvs.CMD_ATTR_DEST), AddressFamily.INET6);
      assertThat(e.activeConnections()).isZero();
      decoded.add(e.dest());
    }
    List<Dest> installed =
        ofType(KernelScenarioMain.sampleTable(), TableOp.AddDest.class).stream()
            .filter(a -> a.service().equals(web6))
            .map(a -> a.dest().normalized())
            .toList();
    assertThat(installed).hasSize(4);
    assertThat(decoded).containsExactlyInAnyOrderElementsOf(installed);
  }

  @Test
  void aCapturedEexistAckMapsBackToItsRequest() throws Exception {
    List<NetlinkMessage> ms = replies("capture-eexist.hex");
    assertThat(ms).hasSize(1);
    NetlinkMessage ack = ms.get(0);
    assertThat(ack.isError()).isTrue();
    assertThat(ack.errno()).isEqualTo(17);
    assertThat(ack.flags() & Netlink.NLM_F_CAPPED).as("NETLINK_CAP_ACK honoured").isNotZero();
    assertThat(ack.ackedSeq()).isEqualTo(ack.seq());
  }

  @Test
  void setConfigSendsOnlyTheTimeoutsGiven() {
    MessageBuilder b = new MessageBuilder();
    IpvsCodec.encodeSetConfig(b, FAMILY, 9, new io.fairway.table.Timeouts(1000, 0, 400));
    NetlinkMessage m = NetlinkMessage.parseAll(ByteBuffer.wrap(b.toByteArray())).get(0);
    assertThat(m.flags()).isEqualTo(Netlink.NLM_F_REQUEST | Netlink.NLM_F_ACK);
    assertThat(b.toByteArray()[16]).as("genl command").isEqualTo((byte) Ipvs.CMD_SET_CONFIG);
    Attributes a = m.genlAttributes();
    assertThat(a.u32(Ipvs.CMD_ATTR_TIMEOUT_TCP)).isEqualTo(1000);
    assertThat(a.has(Ipvs.CMD_ATTR_TIMEOUT_TCP_FIN)).as("0 = leave as it is: not sent").isFalse();
    assertThat(a.u32(Ipvs.CMD_ATTR_TIMEOUT_UDP)).isEqualTo(400);
    assertThat(IpvsCodec.decodeTimeouts(a)).isEqualTo(new io.fairway.table.Timeouts(1000, 0, 400));
  }

  @Test
  void getConfigIsABareRequest() {
    MessageBuilder b = new MessageBuilder();
    IpvsCodec.encodeGetConfig(b, FAMILY, 10);
    assertThat(b.toByteArray()).hasSize(20);
    assertThat(b.toByteArray()[16]).isEqualTo((byte) Ipvs.CMD_GET_CONFIG);
  }
}
