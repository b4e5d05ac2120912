package io.fairway.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A loopback port of the test's own network namespace that leads to a TCP port inside another one,
 * so that a program that cannot be moved there (a browser driven by the test) reaches a daemon that
 * runs there. The connecting thread enters the namespace ({@code setns} moves only the calling
 * thread), opens its socket there and leaves; the bytes are copied by other threads.
 */
final class NetnsForward implements AutoCloseable {
  private final ServerSocket listener;
  private final ExecutorService threads = Executors.newCachedThreadPool();

  /** A single thread that lives in the namespace and opens every connection there. */
  private final ExecutorService inside = Executors.newSingleThreadExecutor();

  NetnsForward(String ns, InetSocketAddress target) throws Exception {
    inside.submit(() -> BgpLab.enter(ns)).get();
    listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    threads.execute(() -> accept(target));
  }

  /** The port on 127.0.0.1 that leads to the target. */
  int port() {
    return listener.getLocalPort();
  }

  private void accept(InetSocketAddress target) {
    while (!listener.isClosed()) {
      Socket client;
      try {
        client = listener.accept();
      } catch (IOException e) {
        return;
      }
      try {
        Socket there =
            inside
                .submit(
                    () -> {
                      Socket s = new Socket();
                      s.connect(target, 5000);
                      return s;
                    })
                .get();
        threads.execute(() -> copy(client, there));
        threads.execute(() -> copy(there, client));
      } catch (Exception e) {
        // Nothing listens there (yet): the client sees its connection closed, as it would there.
        closeQuietly(client);
      }
    }
  }

  private static void copy(Socket from, Socket to) {
    try (InputStream in = from.getInputStream()) {
      OutputStream out = to.getOutputStream();
      in.transferTo(out);
      to.shutdownOutput();
    } catch (IOException e) {
      closeQuietly(to);
      closeQuietly(from);
    }
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException e) {
      // already gone
    }
  }

  @Override
  public void close() throws IOException {
    listener.close();
    threads.shutdownNow();
    inside.shutdownNow();
  }
}
