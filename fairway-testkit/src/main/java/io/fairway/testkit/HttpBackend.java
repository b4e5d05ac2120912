package io.fairway.testkit;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A small JDK HTTP backend on loopback, 200 to everything with an {@code X-Backend} header of its
 * name: the body is its name, and on {@code /headers} the request headers it received (one {@code
 * name: value} line each), on {@code /echo} the request body; {@code /slow?ms=N} waits first,
 * {@code /big?kb=N} sends N KiB. A HEAD gets no body.
 *
 * <p>Its counters are public fields so a test can await or assert them directly. TCP_NODELAY for
 * the JDK server is the surefire configuration's {@code sun.net.httpserver.nodelay} (read once per
 * JVM): without it every keep-alive answer waits for a delayed ACK.
 */
public final class HttpBackend implements AutoCloseable {
  public final String name;
  private final HttpServer server;
  private final ExecutorService pool =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "http-backend");
            t.setDaemon(true);
            return t;
          });

  /** Requests received. */
  public final AtomicInteger requests = new AtomicInteger();

  /**
   * Requests being worked on (received, not yet answering), and the most at once. A request leaves
   * before its answer is written, so a request the proxy sends only after that answer can never
   * overlap it here, however late this thread runs afterwards.
   */
  public final AtomicInteger working = new AtomicInteger();

  public final AtomicInteger mostAtOnce = new AtomicInteger();

  /** The headers of each request, in the order they came. */
  public final List<Map<String, List<String>>> seenHeaders = new CopyOnWriteArrayList<>();

  /** Requests by path. */
  public final Map<String, Integer> byPath = new ConcurrentHashMap<>();

  /** Starts a backend on a loopback port the kernel picks. */
  public HttpBackend(String name) throws IOException {
    this.name = name;
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 200);
    server.setExecutor(pool);
    server.createContext("/", this::handle);
    server.start();
  }

  public int port() {
    return server.getAddress().getPort();
  }

  public InetSocketAddress address() {
    return server.getAddress();
  }

  private void handle(HttpExchange ex) throws IOException {
    requests.incrementAndGet();
    mostAtOnce.accumulateAndGet(working.incrementAndGet(), Math::max);
    byte[] out;
    try {
      out = answer(ex);
    } finally {
      working.decrementAndGet();
    }
    ex.getResponseHeaders().set("X-Backend", name);
    boolean head = ex.getRequestMethod().equals("HEAD");
    ex.sendResponseHeaders(200, head ? -1 : out.length == 0 ? -1 : out.length);
    try (OutputStream os = ex.getResponseBody()) {
      if (!head) {
        os.write(out);
      }
    }
  }

  /** Reads the request and works out the answer's body (after a pause for /slow?ms=N). */
  private byte[] answer(HttpExchange ex) throws IOException {
    seenHeaders.add(Map.copyOf(ex.getRequestHeaders()));
    String path = ex.getRequestURI().getPath();
    byPath.merge(path, 1, Integer::sum);
    String q = ex.getRequestURI().getQuery();
    byte[] body = ex.getRequestBody().readAllBytes();
    try {
      if (path.equals("/slow") && q != null) {
        Thread.sleep(Long.parseLong(q.substring(q.indexOf('=') + 1)));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (path.equals("/headers")) {
      StringBuilder sb = new StringBuilder();
      ex.getRequestHeaders()
          .forEach(
              (k, v) ->
                  sb.append(k.toLowerCase(Locale.ROOT))
                      .append(": ")
                      .append(String.join(",", v))
                      .append('\n'));
      return sb.toString().getBytes(StandardCharsets.UTF_8);
    } else if (path.equals("/big") && q != null) {
      byte[] out = new byte[Integer.parseInt(q.substring(q.indexOf('=') + 1)) * 1024];
      Arrays.fill(out, (byte) 'x');
      return out;
    } else if (path.equals("/echo")) {
      return body;
    }
    return name.getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public void close() {
    server.stop(0);
    pool.shutdownNow();
  }
}
