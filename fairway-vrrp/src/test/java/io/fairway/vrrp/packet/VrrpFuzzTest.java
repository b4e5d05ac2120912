package io.fairway.vrrp.packet;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * Coverage-guided fuzzing (Jazzer) of what a raw protocol-112 socket hands the speaker: anyone on
 * the segment can send it any bytes. An IPv4 datagram (header included, as the IPv4 raw socket
 * returns it) is parsed and its payload decoded; an IPv6 payload (the kernel strips that header) is
 * decoded as from a link-local sender to ff02::12. Invariants: only {@link
 * MalformedAdvertException} escapes, with a one-line message; allocation stays bounded by the
 * input; whatever decodes encodes back to an advertisement that decodes equal. The normal build
 * replays the seeds once (src/test/resources/io/fairway/vrrp/packet/VrrpFuzzTestInputs); {@code
 * bench/fuzz.sh} fuzzes.
 */
class VrrpFuzzTest {
  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
  private static final InetAddress V6_SOURCE = address("fe80::1");
  private static final InetAddress V6_GROUP = address("ff02::12");

  static {
    // One-time class loading and initialisation (addresses, records, exception types) is not
    // what an input costs: run both paths of both targets once before any input is measured.
    for (String seed :
        new String[] {
          "ipv4Datagram/v2-two-addresses",
          "ipv4Datagram/v3-two-addresses",
          "ipv6Payload/v3-one-address"
        }) {
      try (var in = VrrpFuzzTest.class.getResourceAsStream("VrrpFuzzTestInputs/" + seed)) {
        byte[] b = in.readAllBytes();
        warm(b);
        warm(new byte[0]);
        b[b.length - 1] ^= 1;
        warm(b);
      } catch (java.io.IOException e) {
        throw new ExceptionInInitializerError(e);
      }
    }
  }

  private static void warm(byte[] b) {
    try {
      Ipv4Datagram d = Ipv4Datagram.parse(b, b.length);
      decodesBack(b, d.payloadOffset(), d.payloadLength(), d.source(), d.destination());
    } catch (MalformedAdvertException e) {
      warmMessage(e);
    }
    try {
      decodesBack(b, 0, b.length, V6_SOURCE, V6_GROUP);
    } catch (MalformedAdvertException e) {
      warmMessage(e);
    }
  }

  /** Formats the refusal once, so its first formatting does not count against the fuzz target. */
  private static void warmMessage(MalformedAdvertException e) {
    if (e.getMessage() == null) {
      throw new AssertionError("a refusal without a message", e);
    }
  }

  @FuzzTest(maxDuration = "5m")
  void ipv4Datagram(byte[] input) {
    long before = THREADS.getCurrentThreadAllocatedBytes();
    try {
      Ipv4Datagram d = Ipv4Datagram.parse(input, input.length);
      decodesBack(input, d.payloadOffset(), d.payloadLength(), d.source(), d.destination());
    } catch (MalformedAdvertException e) {
      assertOneLine(e);
    }
    assertBounded(before, input.length);
  }

  @FuzzTest(maxDuration = "5m")
  void ipv6Payload(byte[] input) {
    long before = THREADS.getCurrentThreadAllocatedBytes();
    try {
      decodesBack(input, 0, input.length, V6_SOURCE, V6_GROUP);
    } catch (MalformedAdvertException e) {
      assertOneLine(e);
    }
    assertBounded(before, input.length);
  }

  private static void decodesBack(byte[] buf, int off, int len, InetAddress src, InetAddress dst)
      throws MalformedAdvertException {
    Advert a = AdvertCodec.decode(buf, off, len, src, dst);
    byte[] again = AdvertCodec.encode(a, src, dst);
    assertThat(AdvertCodec.decode(again, 0, again.length, src, dst)).isEqualTo(a);
  }

  private static void assertOneLine(MalformedAdvertException e) {
    assertThat(e.getMessage()).isNotBlank().doesNotContain("\n");
  }

  private static void assertBounded(long before, int inputLength) {
    long used = THREADS.getCurrentThreadAllocatedBytes() - before;
    assertThat(used)
        .as("bytes allocated for %d input bytes", inputLength)
        .isLessThan((4L << 20) + 64L * inputLength);
  }

  private static InetAddress address(String literal) {
    try {
      return InetAddress.getByName(literal);
    } catch (UnknownHostException e) {
      throw new ExceptionInInitializerError(e);
    }
  }
}
