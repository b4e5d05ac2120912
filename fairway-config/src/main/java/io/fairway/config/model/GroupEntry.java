package io.fairway.config.model;

import io.fairway.table.AddressFamily;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;

/** One line of a {@code virtual_server_group}. */
public sealed interface GroupEntry {

  /**
   * {@code IP[-LAST] [PORT]} or {@code IP/PREFIX [PORT]}: the addresses from {@code first} to
   * {@code last} inclusive (equal for a single address). Port 0 means "the virtual server's port is
   * not fixed" (persistent services).
   */
  record AddressRange(InetAddress first, InetAddress last, int port) implements GroupEntry {
    /** Number of addresses in the range. */
    public long size() {
      return new BigInteger(1, last.getAddress())
              .subtract(new BigInteger(1, first.getAddress()))
              .longValueExact()
          + 1;
    }

    /** Every address of the range, in order. */
    public List<InetAddress> addresses() {
      List<InetAddress> out = new ArrayList<>();
      BigInteger a = new BigInteger(1, first.getAddress());
      BigInteger end = new BigInteger(1, last.getAddress());
      int len = first.getAddress().length;
      for (; a.compareTo(end) <= 0; a = a.add(BigInteger.ONE)) {
        byte[] raw = a.toByteArray();
        byte[] b = new byte[len];
        int n = Math.min(raw.length, len);
        System.arraycopy(raw, raw.length - n, b, len - n, n);
        try {
          out.add(InetAddress.getByAddress(b));
        } catch (UnknownHostException e) {
          throw new IllegalStateException(e);
        }
      }
      return out;
    }
  }

  /** {@code fwmark N [inet|inet6]}. */
  record Fwmark(long fwmark, AddressFamily family) implements GroupEntry {}
}
