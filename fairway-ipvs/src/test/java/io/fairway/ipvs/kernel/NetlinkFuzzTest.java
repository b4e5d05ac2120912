package io.fairway.ipvs.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.fairway.netlink.Attributes;
import io.fairway.netlink.MalformedMessageException;
import io.fairway.netlink.NetlinkMessage;
import io.fairway.table.AddressFamily;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

/**
 * Coverage-guided fuzzing (Jazzer) of what the kernel sends back: a buffer of netlink messages,
 * split ({@link NetlinkMessage#parseAll}), each an error/ack (errno, acked sequence, extended-ack
 * text) or a generic-netlink IPVS reply decoded as the table reads it (service with its stats,
 * destination, timeouts, sync daemon). Invariants: only {@link MalformedMessageException} escapes
 * (a kernel or a hostile process on the socket must not crash the reader with anything else), and
 * allocation stays bounded by the input. The normal build replays the seeds once
 * (src/test/resources/io/fairway/ipvs/kernel/NetlinkFuzzTestInputs); {@code bench/fuzz.sh} fuzzes.
 */
class NetlinkFuzzTest {
  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

  static {
    // One-time class loading and initialisation (addresses, enums, formatting) is not what an
    // input costs: decode real replies once before any input is measured.
    for (String seed :
        List.of("capture-services-0", "capture-dests6-0", "capture-eexist-0", "daemon-master-0")) {
      try (var in =
          NetlinkFuzzTest.class.getResourceAsStream("NetlinkFuzzTestInputs/ipvsReply/" + seed)) {
        decode(ByteBuffer.wrap(in.readAllBytes()).order(ByteOrder.nativeOrder()));
      } catch (java.io.IOException | RuntimeException e) {
        throw new ExceptionInInitializerError(e);
      }
    }
  }

  @FuzzTest(maxDuration = "5m")
  void ipvsReply(byte[] input) {
    long before = THREADS.getCurrentThreadAllocatedBytes();
    try {
      decode(ByteBuffer.wrap(input).order(ByteOrder.nativeOrder()));
    } catch (MalformedMessageException e) {
      assertThat(e.getMessage()).isNotBlank().doesNotContain("\n");
    }
    long used = THREADS.getCurrentThreadAllocatedBytes() - before;
    assertThat(used)
        .as("bytes allocated for %d input bytes", input.length)
        .isLessThan((4L << 20) + 64L * input.length);
  }

  /** What IpvsKernelTable does with a reply, every branch of it. */
  static void decode(ByteBuffer received) {
    List<NetlinkMessage> messages = NetlinkMessage.parseAll(received);
    for (NetlinkMessage m : messages) {
      if (m.isError()) {
        m.errno();
        m.ackedSeq();
        assertThat(m.extAckMessage()).isNotNull();
        continue;
      }
      if (m.isDone()) {
        continue;
      }
      m.genlCommand();
      Attributes a = m.genlAttributes();
      if (a.has(Ipvs.CMD_ATTR_SERVICE)) {
        Attributes svc = a.nested(Ipvs.CMD_ATTR_SERVICE);
        IpvsCodec.decodeService(svc);
        IpvsCodec.serviceStats(svc);
      }
      if (a.has(Ipvs.CMD_ATTR_DEST)) {
        IpvsCodec.decodeDest(a.nested(Ipvs.CMD_ATTR_DEST), AddressFamily.INET);
      }
      if (a.has(Ipvs.CMD_ATTR_DAEMON)) {
        IpvsCodec.decodeDaemon(a);
      }
      IpvsCodec.decodeTimeouts(a);
    }
  }
}
