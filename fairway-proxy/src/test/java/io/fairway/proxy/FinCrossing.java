package io.fairway.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A client and a backend whose FINs cross while the proxy between them holds bytes back by
 * backpressure: the backend sends its download and its FIN, then reads the upload; the client
 * uploads and sends its FIN, and reads only once the backend is done. Shared by {@link
 * HttpUpgradeTest} (through a tunnel) and {@link io.fairway.proxy.l4.RelayFinBackpressureTest} (the
 * relay alone), so that the two exercise the same exchange.
 */
public final class FinCrossing {
  private FinCrossing() {}

  /**
   * How long either socket waits for its next byte. The relay has no timeout of its own; on
   * loopback a relay that moves nothing for this long has stopped (the stall never resumed, in 10 s
   * or in 30).
   */
  public static final Duration STALL = Duration.ofSeconds(10);

  /** How long the exchange waits for each side's result. */
  private static final Duration WAIT = STALL.multipliedBy(3);

  /**
   * How the backend reads the upload up to the client's FIN: the number of bytes it got. {@link
   * #toEnd} fails on a stall, {@link #untilStall} counts what came before it.
   */
  public interface UploadReader {
    long read(Socket s) throws IOException;
  }

  /** The upload to its end; a stall throws. */
  public static long toEnd(Socket s) throws IOException {
    return s.getInputStream().readAllBytes().length;
  }

  /** The upload to its end, or what came of it before a stall. */
  public static long untilStall(Socket s) throws IOException {
    long read = 0;
    InputStream in = s.getInputStream();
    byte[] buf = new byte[65536];
    try {
      for (int n; (n = in.read(buf)) > 0; ) {
        read += n;
      }
    } catch (SocketTimeoutException e) {
      // stalled: the short count fails the exchange
    }
    return read;
  }

  /**
   * A loopback listener with a small receive buffer (and backlog 1), so that an upload to it is
   * soon held back.
   */
  public static ServerSocket backend() throws IOException {
    ServerSocket backend = new ServerSocket();
    try {
      backend.setReceiveBufferSize(4096);
      backend.bind(new InetSocketAddress(Fixtures.LO, 0), 1);
      return backend;
    } catch (IOException | RuntimeException e) {
      backend.close();
      throw e;
    }
  }

  /** A connection to {@code to} with a small receive buffer, reads bounded by {@link #STALL}. */
  public static Socket client(SocketAddress to) throws IOException {
    Socket c = new Socket();
    try {
      c.setReceiveBufferSize(4096);
      c.connect(to, 2000);
      c.setSoTimeout((int) STALL.toMillis());
      return c;
    } catch (IOException | RuntimeException e) {
      c.close();
      throw e;
    }
  }

  /** The backend's next connection, reads bounded by {@link #STALL}. */
  public static Socket accept(ServerSocket backend) throws IOException {
    Socket s = backend.accept();
    s.setSoTimeout((int) STALL.toMillis());
    return s;
  }

  /**
   * Runs the exchange between the client {@code c} and the backend's side {@code s} and asserts
   * that each got all of the other's bytes, then the other's FIN.
   *
   * @param reader how the backend reads the upload
   * @param stalled the failure's description when the backend got the upload short before the
   *     client read anything; called only then
   */
  public static void exchange(
      Socket c,
      Socket s,
      byte[] upload,
      byte[] download,
      UploadReader reader,
      Callable<String> stalled)
      throws Exception {
    ExecutorService threads = Executors.newCachedThreadPool();
    try {
      AtomicLong written = new AtomicLong();
      CompletableFuture<Void> uploaded =
          CompletableFuture.runAsync(
              () -> {
                try {
                  c.getOutputStream().write(upload);
                  c.shutdownOutput();
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              },
              threads);
      CompletableFuture<Long> backendRead =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  for (int off = 0; off < download.length; off += 65536) {
                    int n = Math.min(65536, download.length - off);
                    s.getOutputStream().write(download, off, n);
                    written.addAndGet(n);
                  }
                  s.shutdownOutput();
                  written.set(-1); // the FIN is out
                  return reader.read(s);
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              },
              threads);
      // The client reads only once the backend's FIN is out, unless the download does not fit in
      // the buffers on the way (the backend's writes stop): then it has to read first, and this
      // download just does not make the FINs cross.
      long[] last = {-2};
      await()
          .atMost(WAIT)
          .pollInterval(Duration.ofMillis(200))
          .until(
              () -> {
                long now = written.get();
                boolean settled = now == -1 || now == last[0];
                last[0] = now;
                return settled;
              });
      if (written.get() == -1) {
        // Everything fit: the client's FIN reaches the backend before the client reads.
        long read = backendRead.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        if (read != upload.length) {
          assertThat(read).as(stalled.call()).isEqualTo(upload.length);
        }
      }
      CompletableFuture<Integer> clientRead =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return c.getInputStream().readAllBytes().length;
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              },
              threads);
      assertThat(backendRead.get(WAIT.toMillis(), TimeUnit.MILLISECONDS))
          .as("the upload, then the client's FIN")
          .isEqualTo(upload.length);
      uploaded.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
      assertThat(clientRead.get(WAIT.toMillis(), TimeUnit.MILLISECONDS))
          .as("the download, then the backend's FIN")
          .isEqualTo(download.length);
    } finally {
      threads.shutdownNow();
    }
  }
}
