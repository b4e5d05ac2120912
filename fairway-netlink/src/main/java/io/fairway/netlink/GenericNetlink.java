package io.fairway.netlink;

import io.fairway.os.Errno;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import org.jspecify.annotations.Nullable;

/**
 * A generic-netlink client: family resolution, request/ack, dumps, and batches of requests whose
 * acks are read in bulk. Every request carries its own sequence number; replies with another
 * sequence number (left over from a request that timed out) are skipped, never mistaken for ours.
 */
public final class GenericNetlink implements Closeable {
  private final NetlinkSocket socket;
  private int seq = (int) (System.nanoTime() & 0x3fffffff);

  public GenericNetlink(NetlinkSocket socket) {
    this.socket = socket;
  }

  /** Opens a generic-netlink socket with the given kernel buffer size and receive timeout. */
  public static GenericNetlink open(int kernelBufferBytes, int timeoutMillis) throws IOException {
    return new GenericNetlink(
        NetlinkSocket.open(Netlink.NETLINK_GENERIC, kernelBufferBytes, timeoutMillis));
  }

  /** A fresh sequence number. */
  public int nextSeq() {
    return ++seq;
  }

  /** Reserves {@code n} consecutive sequence numbers; returns the first. */
  public int reserveSeqs(int n) {
    int first = seq + 1;
    seq += n;
    return first;
  }

  /**
   * The id of a generic-netlink family, or empty when the kernel does not know it (for a module
   * family the kernel first tries to load the module).
   */
  public OptionalInt resolveFamily(String name) throws IOException {
    int s = nextSeq();
    MessageBuilder b = new MessageBuilder(64);
    b.begin(Netlink.GENL_ID_CTRL, Netlink.NLM_F_REQUEST | Netlink.NLM_F_ACK, s)
        .genlHeader(Netlink.CTRL_CMD_GETFAMILY, 1)
        .putString(Netlink.CTRL_ATTR_FAMILY_NAME, name)
        .end();
    try {
      for (NetlinkMessage m : request(b.toByteArray(), s)) {
        Attributes a = m.genlAttributes();
        if (a.has(Netlink.CTRL_ATTR_FAMILY_ID)) {
          return OptionalInt.of(a.u16(Netlink.CTRL_ATTR_FAMILY_ID));
        }
      }
      return OptionalInt.empty();
    } catch (NetlinkException e) {
      if (e.errno() == Errno.ENOENT) {
        return OptionalInt.empty();
      }
      throw e;
    }
  }

  /**
   * Sends one request that was built with {@code NLM_F_ACK} and sequence number {@code seq};
   * returns the replies that came before the ack.
   *
   * @throws NetlinkException with the kernel's errno when the request failed
   */
  public List<NetlinkMessage> request(byte[] message, int seq) throws IOException {
    return exchange(message, seq);
  }

  /**
   * Sends a dump request ({@code NLM_F_DUMP}) and collects every reply up to {@code NLMSG_DONE}.
   */
  public List<NetlinkMessage> dump(byte[] message, int seq) throws IOException {
    return exchange(message, seq);
  }

  /** Replies to {@code seq} until its ack or {@code NLMSG_DONE}, whichever ends the exchange. */
  private List<NetlinkMessage> exchange(byte[] message, int seq) throws IOException {
    socket.send(message, message.length);
    List<NetlinkMessage> replies = new ArrayList<>();
    while (true) {
      for (NetlinkMessage m : NetlinkMessage.parseAll(socket.receive())) {
        if (m.seq() != seq) {
          continue;
        }
        if (m.isError()) {
          int errno = m.errno();
          if (errno != 0) {
            throw new KernelError(errno, m.extAckMessage());
          }
          return replies;
        }
        if (m.isDone()) {
          return replies;
        }
        replies.add(copy(m));
      }
    }
  }

  /**
   * Sends {@code count} requests, already encoded back to back in {@code batch} with the
   * consecutive sequence numbers {@code firstSeq...}, in one datagram, then reads their acks in
   * bulk. The kernel processes the messages in order and acks each one, failures included, so one
   * refused request does not stop the rest.
   *
   * @return one {@link Ack} per request, in request order
   */
  public Ack[] batch(byte[] batch, int length, int firstSeq, int count) throws IOException {
    // Null until its ack arrives; the ones that never do become LOST before returning.
    @Nullable Ack[] acks = new Ack[count];
    socket.send(batch, length);
    int[] missing = {count};
    while (missing[0] > 0) {
      try {
        socket.receiveMany(
            received -> {
              for (NetlinkMessage m : NetlinkMessage.parseAll(received)) {
                if (!m.isError()) {
                  continue;
                }
                int i = m.seq() - firstSeq;
                if (i < 0 || i >= count || acks[i] != null) {
                  continue;
                }
                acks[i] = new Ack(m.errno(), m.extAckMessage());
                missing[0]--;
              }
            });
      } catch (NetlinkTimeoutException e) {
        break;
      } catch (NetlinkException e) {
        if (e.errno() == Errno.ENOBUFS) {
          // Acks overflowed the receive buffer; those already queued still arrive.
          continue;
        }
        throw e;
      }
    }
    for (int i = 0; i < count; i++) {
      if (acks[i] == null) {
        acks[i] = Ack.LOST;
      }
    }
    return acks;
  }

  private static NetlinkMessage copy(NetlinkMessage m) {
    ByteBuffer p = ByteBuffer.allocate(m.payload().remaining()).order(m.payload().order());
    p.put(m.payload().duplicate()).flip();
    return new NetlinkMessage(m.type(), m.flags(), m.seq(), m.pid(), p);
  }

  @Override
  public void close() {
    socket.close();
  }

  /**
   * The kernel's answer to one request of a batch.
   *
   * @param errno 0 for success, else the positive errno; -1 when no ack arrived
   * @param message the kernel's extended-ack text, or empty
   */
  public record Ack(int errno, String message) {
    /** No ack arrived (receive buffer overflow or timeout). */
    public static final Ack LOST = new Ack(-1, "no acknowledgement from the kernel");

    public boolean ok() {
      return errno == 0;
    }
  }

  /** The kernel refused a request. */
  public static final class KernelError extends NetlinkException {
    private static final long serialVersionUID = 1L;
    private final String extAck;

    public KernelError(int errno, String extAck) {
      super(errno, extAck.isEmpty() ? "kernel refused the request" : extAck);
      this.extAck = extAck;
    }

    /** The kernel's extended-ack text, or empty. */
    public String extAck() {
      return extAck;
    }
  }
}
