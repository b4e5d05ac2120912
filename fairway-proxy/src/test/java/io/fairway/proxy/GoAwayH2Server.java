package io.fairway.proxy;

import static io.fairway.proxy.RawH2.GOAWAY;
import static io.fairway.proxy.RawH2.HEADERS;
import static io.fairway.proxy.RawH2.SETTINGS;
import static io.fairway.proxy.RawH2.frame;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An h2c server of hand-built frames that processes no stream: the first HEADERS of a connection
 * gets a GOAWAY whose last stream id is 0, below it (RFC 9113 6.8: the stream was not processed),
 * and the connection stays open until the client closes it, so the stream is told apart from a
 * closed connection. A codec-built server cannot say this: its GOAWAY covers the streams it saw.
 */
final class GoAwayH2Server implements AutoCloseable {
  private static final int PREFACE = 24;
  private static final int ACK = 1;

  private final ServerSocket server = new ServerSocket(0, 50, Fixtures.LO);
  private final AtomicInteger refused = new AtomicInteger();
  private final List<Socket> open = new CopyOnWriteArrayList<>();

  GoAwayH2Server() throws IOException {
    Thread t = new Thread(this::accept, "goaway-h2-server");
    t.setDaemon(true);
    t.start();
  }

  private void accept() {
    try {
      while (true) {
        Socket s = server.accept();
        open.add(s);
        Thread t = new Thread(() -> serve(s), "goaway-h2-conn");
        t.setDaemon(true);
        t.start();
      }
    } catch (IOException e) {
      // closed
    }
  }

  private void serve(Socket s) {
    try (s) {
      DataInputStream in = new DataInputStream(s.getInputStream());
      OutputStream out = s.getOutputStream();
      in.readFully(new byte[PREFACE]);
      out.write(frame(SETTINGS, 0, 0, new byte[0]));
      byte[] head = new byte[9];
      boolean wentAway = false;
      while (true) {
        in.readFully(head);
        int n = ((head[0] & 0xff) << 16) | ((head[1] & 0xff) << 8) | (head[2] & 0xff);
        in.readFully(new byte[n]);
        int type = head[3];
        if (type == SETTINGS && (head[4] & ACK) == 0) {
          out.write(frame(SETTINGS, ACK, 0, new byte[0]));
        } else if (type == HEADERS) {
          refused.incrementAndGet();
          if (!wentAway) {
            out.write(frame(GOAWAY, 0, 0, new byte[8])); // last stream 0, NO_ERROR
            wentAway = true;
          }
        }
        out.flush();
      }
    } catch (IOException e) {
      // the client closed
    }
  }

  InetSocketAddress address() {
    return (InetSocketAddress) server.getLocalSocketAddress();
  }

  int refused() {
    return refused.get();
  }

  @Override
  public void close() throws IOException {
    server.close();
    for (Socket s : open) {
      s.close();
    }
  }
}
