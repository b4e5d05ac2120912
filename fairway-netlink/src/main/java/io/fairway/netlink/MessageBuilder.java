package io.fairway.netlink;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;

/**
 * Writes one or more netlink messages into a single buffer, so a batch can go to the kernel in one
 * {@code sendto}. Lengths of messages and nested attributes are patched in when they are closed;
 * everything is padded to netlink's 4-byte alignment. Integers are in host byte order except where
 * a {@code Be} method says network order (IPVS ports and IPv4 netmasks).
 *
 * <pre>{@code
 * MessageBuilder b = new MessageBuilder();
 * b.begin(familyId, NLM_F_REQUEST | NLM_F_ACK, seq).genlHeader(cmd, 1);
 * int svc = b.beginNested(1);
 * b.putU16(1, 2);
 * b.endNested(svc);
 * b.end();
 * byte[] wire = b.toByteArray();
 * }</pre>
 */
public final class MessageBuilder {
  private ByteBuffer buf;
  private int messageStart = -1;
  private int messages;
  private final Deque<Integer> open = new ArrayDeque<>();

  public MessageBuilder() {
    this(512);
  }

  public MessageBuilder(int initialCapacity) {
    buf = ByteBuffer.allocate(Math.max(64, initialCapacity)).order(ByteOrder.nativeOrder());
  }

  /** Starts a message with the given nlmsg type, flags and sequence number. */
  public MessageBuilder begin(int type, int flags, int seq) {
    if (messageStart >= 0) {
      throw new IllegalStateException("previous message not ended");
    }
    ensure(Netlink.NLMSG_HDRLEN);
    messageStart = buf.position();
    buf.putInt(0); // length, patched by end()
    buf.putShort((short) type);
    buf.putShort((short) flags);
    buf.putInt(seq);
    buf.putInt(0); // the kernel fills in our port id
    return this;
  }

  /** Writes the generic-netlink header after {@link #begin}. */
  public MessageBuilder genlHeader(int cmd, int version) {
    ensure(Netlink.GENL_HDRLEN);
    buf.put((byte) cmd);
    buf.put((byte) version);
    buf.putShort((short) 0);
    return this;
  }

  /** Ends the current message: patches its length. */
  public MessageBuilder end() {
    if (messageStart < 0 || !open.isEmpty()) {
      throw new IllegalStateException("no message open, or a nested attribute is still open");
    }
    buf.putInt(messageStart, buf.position() - messageStart);
    messageStart = -1;
    messages++;
    return this;
  }

  /** Opens a nested attribute; returns a token for {@link #endNested}. */
  public int beginNested(int type) {
    ensure(Netlink.NLA_HDRLEN);
    int start = buf.position();
    buf.putShort((short) 0);
    // The kernel's IPVS parser accepts nests with or without NLA_F_NESTED; newer strict
    // parsers require it, so set it.
    buf.putShort((short) (type | Netlink.NLA_F_NESTED));
    open.push(start);
    return start;
  }

  /** Closes the nested attribute opened by {@link #beginNested}. */
  public void endNested(int token) {
    Integer top = open.pop();
    if (top != token) {
      throw new IllegalStateException("nested attributes closed out of order");
    }
    buf.putShort(token, (short) (buf.position() - token));
  }

  public MessageBuilder putU8(int type, int value) {
    header(type, 1);
    buf.put((byte) value);
    pad();
    return this;
  }

  public MessageBuilder putU16(int type, int value) {
    header(type, 2);
    buf.putShort((short) value);
    pad();
    return this;
  }

  /** A 16-bit value in network byte order (IPVS ports). */
  public MessageBuilder putBe16(int type, int value) {
    header(type, 2);
    buf.put((byte) (value >>> 8));
    buf.put((byte) value);
    pad();
    return this;
  }

  public MessageBuilder putU32(int type, int value) {
    header(type, 4);
    buf.putInt(value);
    return this;
  }

  /** A 32-bit value in network byte order (an IPv4 netmask). */
  public MessageBuilder putBe32(int type, int value) {
    header(type, 4);
    buf.put((byte) (value >>> 24))
        .put((byte) (value >>> 16))
        .put((byte) (value >>> 8))
        .put((byte) value);
    return this;
  }

  public MessageBuilder putU64(int type, long value) {
    header(type, 8);
    buf.putLong(value);
    return this;
  }

  public MessageBuilder putBytes(int type, byte[] value) {
    header(type, value.length);
    buf.put(value);
    pad();
    return this;
  }

  /** A NUL-terminated string. */
  public MessageBuilder putString(int type, String value) {
    byte[] b = value.getBytes(StandardCharsets.UTF_8);
    header(type, b.length + 1);
    buf.put(b);
    buf.put((byte) 0);
    pad();
    return this;
  }

  /** Number of messages ended so far. */
  public int messageCount() {
    return messages;
  }

  /** Bytes written so far. */
  public int size() {
    return buf.position();
  }

  /** The bytes written so far. */
  public byte[] toByteArray() {
    return Arrays.copyOf(buf.array(), buf.position());
  }

  /** Forgets everything written, keeping the buffer for reuse. */
  public void reset() {
    buf.clear();
    messageStart = -1;
    messages = 0;
    open.clear();
  }

  private void header(int type, int payloadLength) {
    if (payloadLength > 0xffff - Netlink.NLA_HDRLEN) {
      throw new IllegalArgumentException("attribute too long: " + payloadLength);
    }
    ensure(Netlink.NLA_HDRLEN + Netlink.align(payloadLength));
    buf.putShort((short) (Netlink.NLA_HDRLEN + payloadLength));
    buf.putShort((short) type);
  }

  private void pad() {
    while ((buf.position() & 3) != 0) {
      buf.put((byte) 0);
    }
  }

  private void ensure(int more) {
    if (buf.remaining() < more) {
      ByteBuffer bigger =
          ByteBuffer.allocate(Math.max(buf.capacity() * 2, buf.position() + more))
              .order(ByteOrder.nativeOrder());
      buf.flip();
      bigger.put(buf);
      buf = bigger;
    }
  }
}
