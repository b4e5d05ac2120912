package io.fairway.netlink;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class NetlinkMessageTest {

  /** An ack as the kernel sends it with NETLINK_CAP_ACK and NETLINK_EXT_ACK. */
  private static ByteBuffer ack(int errno, int ackedSeq, String extAck) {
    ByteBuffer b = ByteBuffer.allocate(256).order(ByteOrder.nativeOrder());
    b.putInt(0)
        .putShort((short) Netlink.NLMSG_ERROR)
        .putShort((short) (Netlink.NLM_F_CAPPED | (extAck.isEmpty() ? 0 : Netlink.NLM_F_ACK_TLVS)))
        .putInt(ackedSeq)
        .putInt(1234);
    b.putInt(-errno);
    // the echoed request header (capped: header only)
    b.putInt(60).putShort((short) 0x1c).putShort((short) 5).putInt(ackedSeq).putInt(0);
    if (!extAck.isEmpty()) {
      byte[] s = (extAck + "\0").getBytes(StandardCharsets.UTF_8);
      b.putShort((short) (4 + s.length)).putShort((short) Netlink.NLMSGERR_ATTR_MSG).put(s);
      while ((b.position() & 3) != 0) {
        b.put((byte) 0);
      }
    }
    b.putInt(0, b.position());
    return b.flip();
  }

  @Test
  void anAckCarriesErrnoSequenceAndTheKernelsMessage() {
    NetlinkMessage m = NetlinkMessage.parseAll(ack(17, 99, "Destination already exists")).get(0);
    assertThat(m.isError()).isTrue();
    assertThat(m.errno()).isEqualTo(17);
    assertThat(m.ackedSeq()).isEqualTo(99);
    assertThat(m.extAckMessage()).isEqualTo("Destination already exists");
  }

  @Test
  void aSuccessAckHasErrnoZeroAndNoMessage() {
    NetlinkMessage m = NetlinkMessage.parseAll(ack(0, 5, "")).get(0);
    assertThat(m.errno()).isZero();
    assertThat(m.extAckMessage()).isEmpty();
  }
}
