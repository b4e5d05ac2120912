package io.fairway.proxy;

import io.fairway.testkit.LoopbackServer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A loopback TCP backend for bulk transfers: for every line holding a byte count N it sends N bytes
 * of {@link #pattern} (keep-alive style); after a line "N close", or when the client has shut down
 * its side, it closes after the answer (a download ending in FIN, like an HTTP/1.0 response).
 * {@link #sent} is what its writes have handed to the kernel so far.
 */
final class BlobServer implements AutoCloseable {
  private final LoopbackServer server;
  final AtomicLong sent = new AtomicLong();

  BlobServer() throws IOException {
    server = new LoopbackServer("blob", 50, this::serve);
  }

  InetSocketAddress address() {
    return server.address();
  }

  /** Byte i of every blob: not periodic in any power of two, so a lost or repeated chunk shows. */
  static byte pattern(long i) {
    return (byte) ((i * 31 + i / 251) % 253);
  }

  /**
   * Reads {@code in} to its end, checking every byte against {@link #pattern}; returns how many
   * came. A wrong byte fails at once, naming {@code what}, its offset and {@code n}, the size
   * asked.
   */
  static long readBlob(java.io.InputStream in, long n, String what) throws IOException {
    byte[] buf = new byte[65536];
    long off = 0;
    int r;
    while ((r = in.read(buf)) > 0) {
      for (int i = 0; i < r; i++) {
        if (buf[i] != pattern(off + i)) {
          throw new AssertionError(what + "byte " + (off + i) + " of " + n + " differs");
        }
      }
      off += r;
    }
    return off;
  }

  private void serve(Socket s) throws IOException {
    BufferedReader in =
        new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII));
    OutputStream out = s.getOutputStream();
    byte[] buf = new byte[16384];
    String line;
    while ((line = in.readLine()) != null) {
      String[] w = line.trim().split(" ");
      long n = Long.parseLong(w[0]);
      for (long off = 0; off < n; ) {
        int len = (int) Math.min(buf.length, n - off);
        for (int i = 0; i < len; i++) {
          buf[i] = pattern(off + i);
        }
        out.write(buf, 0, len);
        off += len;
        sent.addAndGet(len);
      }
      out.flush();
      if (w.length > 1 && w[1].equals("close")) {
        break;
      }
    }
  }

  @Override
  public void close() throws IOException {
    server.close();
  }
}
