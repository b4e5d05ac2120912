package io.fairway.netlink;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * One received netlink message: its header fields and its payload (everything after the 16-byte
 * {@code nlmsghdr}).
 *
 * @param type nlmsg type: a family id, or {@link Netlink#NLMSG_ERROR} / {@link Netlink#NLMSG_DONE}
 * @param flags nlmsg flags
 * @param seq sequence number, echoing the request's
 * @param pid port id
 * @param payload the bytes after the header, position 0, native byte order
 */
public record NetlinkMessage(int type, int flags, int seq, int pid, ByteBuffer payload) {

  /** Splits a buffer of received bytes into messages. */
  public static List<NetlinkMessage> parseAll(ByteBuffer received) {
    ByteBuffer b = received.slice().order(ByteOrder.nativeOrder());
    List<NetlinkMessage> out = new ArrayList<>();
    while (b.remaining() >= Netlink.NLMSG_HDRLEN) {
      int start = b.position();
      int len = b.getInt(start);
      // len > limit - start, not start + len > limit: a length near 2^31 (the header's u32
      // read as an int) overflows the sum (Jazzer found it).
      if (len < Netlink.NLMSG_HDRLEN || len > b.limit() - start) {
        throw new MalformedMessageException(
            "message of length " + len + " runs past the end (" + b.remaining() + " left)");
      }
      int type = Short.toUnsignedInt(b.getShort(start + 4));
      int flags = Short.toUnsignedInt(b.getShort(start + 6));
      int seq = b.getInt(start + 8);
      int pid = b.getInt(start + 12);
      ByteBuffer payload =
          b.duplicate()
              .position(start + Netlink.NLMSG_HDRLEN)
              .limit(start + len)
              .slice()
              .order(ByteOrder.nativeOrder());
      out.add(new NetlinkMessage(type, flags, seq, pid, payload));
      b.position(Math.min(b.limit(), start + Netlink.align(len)));
    }
    return out;
  }

  public boolean isError() {
    return type == Netlink.NLMSG_ERROR;
  }

  public boolean isDone() {
    return type == Netlink.NLMSG_DONE;
  }

  /**
   * The errno of an {@link Netlink#NLMSG_ERROR} message as a positive number, 0 for a plain ack.
   */
  public int errno() {
    if (!isError()) {
      throw new IllegalStateException("not an NLMSG_ERROR message");
    }
    if (payload.remaining() < 4) {
      throw new MalformedMessageException("NLMSG_ERROR without an error code");
    }
    return -payload.getInt(0);
  }

  /**
   * The sequence number of the request an {@link Netlink#NLMSG_ERROR} answers, from the echoed
   * request header (the ack's own seq is the same, but this is what the kernel guarantees).
   */
  public int ackedSeq() {
    if (payload.remaining() >= 4 + Netlink.NLMSG_HDRLEN) {
      return payload.getInt(4 + 8);
    }
    return seq;
  }

  /**
   * The kernel's extended-ack message for a failed request, if it sent one ({@code
   * NETLINK_EXT_ACK}); empty otherwise.
   */
  public String extAckMessage() {
    if (!isError() || (flags & Netlink.NLM_F_ACK_TLVS) == 0) {
      return "";
    }
    int echoed = Netlink.NLMSG_HDRLEN;
    if ((flags & Netlink.NLM_F_CAPPED) == 0 && payload.remaining() >= 4 + Netlink.NLMSG_HDRLEN) {
      echoed = payload.getInt(4);
    }
    int tlvStart = 4 + Netlink.align(echoed);
    // The echoed length is the sender's word: a negative or overflowing one (Jazzer found it)
    // means there is no extended ack to read, not an IllegalArgumentException.
    if (echoed < Netlink.NLMSG_HDRLEN || tlvStart < 0 || tlvStart >= payload.limit()) {
      return "";
    }
    try {
      Attributes a = Attributes.parse(payload.duplicate().position(tlvStart));
      return a.optionalString(Netlink.NLMSGERR_ATTR_MSG).orElse("");
    } catch (MalformedMessageException e) {
      return "";
    }
  }

  /** The generic-netlink command of this message. */
  public int genlCommand() {
    if (payload.remaining() < Netlink.GENL_HDRLEN) {
      throw new MalformedMessageException("generic netlink message without its header");
    }
    return Byte.toUnsignedInt(payload.get(0));
  }

  /** The attributes after the generic-netlink header. */
  public Attributes genlAttributes() {
    if (payload.remaining() < Netlink.GENL_HDRLEN) {
      throw new MalformedMessageException("generic netlink message without its header");
    }
    return Attributes.parse(payload.duplicate().position(Netlink.GENL_HDRLEN));
  }
}
