package io.fairway.netlink;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The attributes of one netlink attribute stream (a message's payload, or a nested attribute),
 * indexed by type. A type that appears twice keeps its last value, like the kernel's {@code
 * nla_parse}. Malformed streams (an attribute running past the end) are rejected rather than
 * half-read, because a truncated counter would be silently wrong.
 */
public final class Attributes {
  private final Map<Integer, ByteBuffer> byType;

  private Attributes(Map<Integer, ByteBuffer> byType) {
    this.byType = byType;
  }

  /** Parses the attributes in {@code buf} from its position to its limit. */
  public static Attributes parse(ByteBuffer buf) {
    ByteBuffer b = buf.slice().order(ByteOrder.nativeOrder());
    Map<Integer, ByteBuffer> map = new HashMap<>();
    while (b.remaining() >= Netlink.NLA_HDRLEN) {
      int start = b.position();
      int len = Short.toUnsignedInt(b.getShort(start));
      int type = Short.toUnsignedInt(b.getShort(start + 2)) & Netlink.NLA_TYPE_MASK;
      if (len < Netlink.NLA_HDRLEN || start + len > b.limit()) {
        throw new MalformedMessageException(
            "attribute "
                + type
                + " of length "
                + len
                + " runs past the end ("
                + b.remaining()
                + " left)");
      }
      ByteBuffer value =
          b.duplicate().position(start + Netlink.NLA_HDRLEN).limit(start + len).slice();
      map.put(type, value.order(ByteOrder.nativeOrder()));
      b.position(Math.min(b.limit(), start + Netlink.align(len)));
    }
    return new Attributes(map);
  }

  public boolean has(int type) {
    return byType.containsKey(type);
  }

  /** The raw value of an attribute, as a fresh read-only view. */
  public Optional<ByteBuffer> raw(int type) {
    ByteBuffer v = byType.get(type);
    return v == null
        ? Optional.empty()
        : Optional.of(v.asReadOnlyBuffer().order(ByteOrder.nativeOrder()));
  }

  public int u8(int type) {
    return Byte.toUnsignedInt(need(type, 1).get(0));
  }

  public int u16(int type) {
    return Short.toUnsignedInt(need(type, 2).getShort(0));
  }

  /** A 16-bit value sent in network byte order. */
  public int be16(int type) {
    ByteBuffer v = need(type, 2);
    return (Byte.toUnsignedInt(v.get(0)) << 8) | Byte.toUnsignedInt(v.get(1));
  }

  public int u32(int type) {
    return need(type, 4).getInt(0);
  }

  /** A 32-bit value sent in network byte order. */
  public int be32(int type) {
    return need(type, 4).duplicate().order(ByteOrder.BIG_ENDIAN).getInt(0);
  }

  public long u64(int type) {
    return need(type, 8).getLong(0);
  }

  public int u16(int type, int absent) {
    return has(type) ? u16(type) : absent;
  }

  public int u32(int type, int absent) {
    return has(type) ? u32(type) : absent;
  }

  public byte[] bytes(int type) {
    ByteBuffer v = byType.get(type);
    if (v == null) {
      throw new MalformedMessageException("attribute " + type + " missing");
    }
    byte[] out = new byte[v.remaining()];
    v.duplicate().get(out);
    return out;
  }

  /** A string attribute, up to its first NUL. */
  public String string(int type) {
    byte[] b = bytes(type);
    int n = 0;
    while (n < b.length && b[n] != 0) {
      n++;
    }
    return new String(b, 0, n, StandardCharsets.UTF_8);
  }

  public Optional<String> optionalString(int type) {
    return has(type) ? Optional.of(string(type)) : Optional.empty();
  }

  /** The attributes nested inside an attribute. */
  public Attributes nested(int type) {
    ByteBuffer v = byType.get(type);
    if (v == null) {
      throw new MalformedMessageException("nested attribute " + type + " missing");
    }
    return parse(v.duplicate());
  }

  private ByteBuffer need(int type, int size) {
    ByteBuffer v = byType.get(type);
    if (v == null) {
      throw new MalformedMessageException("attribute " + type + " missing");
    }
    if (v.remaining() < size) {
      throw new MalformedMessageException(
          "attribute " + type + " has " + v.remaining() + " bytes, expected " + size);
    }
    return v;
  }
}
