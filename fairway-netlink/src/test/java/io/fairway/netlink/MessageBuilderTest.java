package io.fairway.netlink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class MessageBuilderTest {

  @Test
  void headerAndAttributesAreLaidOutAsTheKernelExpects() {
    MessageBuilder b = new MessageBuilder();
    b.begin(0x1c, Netlink.NLM_F_REQUEST | Netlink.NLM_F_ACK, 7).genlHeader(5, 1);
    b.putU8(1, 0xab);
    b.putBe16(2, 80);
    b.putString(3, "rr");
    b.end();
    byte[] wire = b.toByteArray();
    // nlmsghdr(16) + genlhdr(4) + u8 attr (4+1 -> 8) + be16 attr (4+2 -> 8) + "rr\0" (4+3 -> 8)
    assertThat(wire).hasSize(16 + 4 + 8 + 8 + 8);
    ByteBuffer bb = ByteBuffer.wrap(wire).order(ByteOrder.nativeOrder());
    assertThat(bb.getInt(0)).isEqualTo(wire.length);
    assertThat(bb.getShort(4)).isEqualTo((short) 0x1c);
    assertThat(bb.getShort(6)).isEqualTo((short) 5);
    assertThat(bb.getInt(8)).isEqualTo(7);
    assertThat(wire[16]).isEqualTo((byte) 5);
    assertThat(wire[17]).isEqualTo((byte) 1);
    // u8: len 5, padded with zeros
    assertThat(HexFormat.of().formatHex(wire, 20, 28))
        .isEqualTo(hexLe16(5) + hexLe16(1) + "ab000000");
    // be16 port 80 is 00 50 on the wire whatever the host order
    assertThat(HexFormat.of().formatHex(wire, 28, 36))
        .isEqualTo(hexLe16(6) + hexLe16(2) + "00500000");
    assertThat(HexFormat.of().formatHex(wire, 36, 44))
        .isEqualTo(hexLe16(7) + hexLe16(3) + "72720000");
  }

  private static String hexLe16(int v) {
    byte[] b = ByteBuffer.allocate(2).order(ByteOrder.nativeOrder()).putShort((short) v).array();
    return HexFormat.of().formatHex(b);
  }

  @Test
  void nestedAttributesCarryTheirLengthAndTheNestedFlag() {
    MessageBuilder b = new MessageBuilder();
    b.begin(0x1c, 1, 1).genlHeader(1, 1);
    int outer = b.beginNested(1);
    b.putU16(1, 2);
    int inner = b.beginNested(10);
    b.putU64(1, 0x0102030405060708L);
    b.endNested(inner);
    b.putBe32(9, 0xffffff00);
    b.endNested(outer);
    b.end();
    NetlinkMessage m = NetlinkMessage.parseAll(ByteBuffer.wrap(b.toByteArray())).get(0);
    ByteBuffer raw = m.payload();
    int outerType = Short.toUnsignedInt(raw.getShort(4 + 2));
    assertThat(outerType & Netlink.NLA_F_NESTED).isNotZero();
    Attributes svc = m.genlAttributes().nested(1);
    assertThat(svc.u16(1)).isEqualTo(2);
    assertThat(svc.nested(10).u64(1)).isEqualTo(0x0102030405060708L);
    assertThat(svc.be32(9)).isEqualTo(0xffffff00);
    assertThat(svc.bytes(9)).containsExactly(0xff, 0xff, 0xff, 0x00);
  }

  @Test
  void manyMessagesInOneBufferSplitBackApart() {
    MessageBuilder b = new MessageBuilder(64);
    for (int i = 0; i < 500; i++) {
      b.begin(0x1c, Netlink.NLM_F_REQUEST, 1000 + i).genlHeader(i % 17, 1);
      b.putU32(4, i).putString(6, "s" + i);
      b.end();
    }
    assertThat(b.messageCount()).isEqualTo(500);
    List<NetlinkMessage> ms = NetlinkMessage.parseAll(ByteBuffer.wrap(b.toByteArray()));
    assertThat(ms).hasSize(500);
    for (int i = 0; i < 500; i++) {
      NetlinkMessage m = ms.get(i);
      assertThat(m.seq()).isEqualTo(1000 + i);
      assertThat(m.genlCommand()).isEqualTo(i % 17);
      assertThat(m.genlAttributes().u32(4)).isEqualTo(i);
      assertThat(m.genlAttributes().string(6)).isEqualTo("s" + i);
    }
  }

  @Test
  void randomAttributeStreamsRoundTrip() {
    Random r = new Random(42);
    for (int round = 0; round < 200; round++) {
      MessageBuilder b = new MessageBuilder(16);
      b.begin(0x10, 0, round).genlHeader(3, 1);
      int n = 1 + r.nextInt(12);
      byte[][] values = new byte[n][];
      for (int i = 0; i < n; i++) {
        values[i] = new byte[r.nextInt(40)];
        r.nextBytes(values[i]);
        b.putBytes(i + 1, values[i]);
      }
      b.end();
      Attributes a =
          NetlinkMessage.parseAll(ByteBuffer.wrap(b.toByteArray())).get(0).genlAttributes();
      for (int i = 0; i < n; i++) {
        assertThat(a.bytes(i + 1)).isEqualTo(values[i]);
      }
      assertThat(a.has(n + 1)).isFalse();
    }
  }

  @Test
  void truncatedInputIsRejectedNotHalfRead() {
    MessageBuilder b = new MessageBuilder();
    b.begin(0x1c, 0, 1).genlHeader(1, 1).putU32(1, 5).end();
    byte[] wire = b.toByteArray();
    ByteBuffer cut = ByteBuffer.wrap(wire, 0, wire.length - 2);
    assertThatThrownBy(() -> NetlinkMessage.parseAll(cut))
        .isInstanceOf(MalformedMessageException.class);
    // an attribute claiming more bytes than the stream has
    ByteBuffer bad =
        ByteBuffer.allocate(8)
            .order(ByteOrder.nativeOrder())
            .putShort((short) 40)
            .putShort((short) 1);
    bad.flip().limit(8);
    assertThatThrownBy(() -> Attributes.parse(bad)).isInstanceOf(MalformedMessageException.class);
    Attributes empty = Attributes.parse(ByteBuffer.allocate(0));
    assertThatThrownBy(() -> empty.u32(1))
        .isInstanceOf(MalformedMessageException.class)
        .hasMessageContaining("missing");
  }

  @Test
  void misuseOfTheBuilderIsCaught() {
    MessageBuilder b = new MessageBuilder();
    b.begin(1, 0, 1);
    assertThatThrownBy(() -> b.begin(1, 0, 2)).isInstanceOf(IllegalStateException.class);
    int n = b.beginNested(1);
    assertThatThrownBy(b::end).isInstanceOf(IllegalStateException.class);
    b.endNested(n);
    b.end();
  }
}
