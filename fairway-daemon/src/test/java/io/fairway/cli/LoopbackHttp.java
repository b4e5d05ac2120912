package io.fairway.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ProxySelector;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * HTTP on loopback for the tests that run {@code fairway run --userspace} with HTTP virtual
 * servers: backends (closed with this object), raw requests to a virtual server, the admin
 * listener's answers, the text of one virtual server and one series of a scrape.
 */
final class LoopbackHttp implements AutoCloseable {
  /** What a backend that simply works answers. */
  static final String OK = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok";

  /** What a backend does with one connection it accepted. */
  @FunctionalInterface
  interface Handler {
    void accepted(Socket connection) throws IOException;
  }

  private final List<ServerSocket> listeners = new CopyOnWriteArrayList<>();
  private final HttpClient http =
      HttpClient.newBuilder()
          .proxy(ProxySelector.of(null))
          .connectTimeout(Duration.ofSeconds(2))
          .build();

  /**
   * A backend on loopback that gives each connection it accepts to {@code handler} until it is
   * closed; a failure with one connection does not end it.
   *
   * @return its port
   */
  int backend(Handler handler) throws IOException {
    ServerSocket s = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    listeners.add(s);
    Thread t =
        new Thread(
            () -> {
              while (!s.isClosed()) {
                try {
                  handler.accepted(s.accept());
                } catch (IOException e) {
                  if (s.isClosed()) {
                    return;
                  }
                }
              }
            },
            "backend-" + s.getLocalPort());
    t.setDaemon(true);
    t.start();
    return s.getLocalPort();
  }

  /** A backend that reads each request head, answers {@code reply} and closes. */
  int answering(String reply) throws IOException {
    return backend(
        c -> {
          try (c) {
            readHead(c);
            c.getOutputStream().write(reply.getBytes(StandardCharsets.ISO_8859_1));
          }
        });
  }

  /** {@code GET path} on the admin listener at 127.0.0.1:{@code port}. */
  HttpResponse<String> admin(int port, String path) throws IOException, InterruptedException {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(30))
            .GET()
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** Closes every backend. */
  @Override
  public void close() throws IOException {
    for (ServerSocket s : listeners) {
      s.close();
    }
  }

  /** Reads up to the end of a request head (or of the stream). */
  static void readHead(Socket c) throws IOException {
    var in = c.getInputStream();
    int state = 0;
    while (state < 4) {
      int b = in.read();
      if (b < 0) {
        return;
      }
      state = (b == '\r' && state % 2 == 0) || (b == '\n' && state % 2 == 1) ? state + 1 : 0;
    }
  }

  /** The status code the proxy answers {@code request}, sent raw on a fresh connection. */
  static int raw(int port, String request) throws IOException {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 3000);
      s.setSoTimeout(10_000);
      s.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
      String response = new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
      return Integer.parseInt(response.substring(9, 12));
    }
  }

  /** The status code of {@code GET target} on a fresh connection. */
  static int get(int port, String target) throws IOException {
    return raw(port, "GET " + target + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  }

  /** The status code of {@code GET /} on a fresh connection. */
  static int status(int port) throws IOException {
    return get(port, "/");
  }

  /** An HTTP virtual server on 127.0.0.1:{@code vip} with {@code extra} and one real server. */
  static String virtualServer(int vip, int rs, String extra) {
    return "virtual_server 127.0.0.1 "
        + vip
        + " {\n    lb_algo rr\n    lb_kind HTTP\n    protocol TCP\n"
        + extra
        + "    real_server 127.0.0.1 "
        + rs
        + " {\n        weight 1\n    }\n}\n";
  }

  /**
   * The value of the one series of {@code name} whose labels include every one of {@code labels}.
   */
  static double value(String scrape, String name, String... labels) {
    Matcher m =
        Pattern.compile("^" + Pattern.quote(name) + "\\{([^}]*)} (\\S+)$", Pattern.MULTILINE)
            .matcher(scrape);
    Double found = null;
    while (m.find()) {
      String ls = m.group(1);
      if (Arrays.stream(labels).allMatch(l -> ls.contains(l))) {
        assertThat(found).as("one series of " + name + " with " + List.of(labels)).isNull();
        found = Double.parseDouble(m.group(2));
      }
    }
    assertThat(found).as(name + " with " + List.of(labels) + " in\n" + scrape).isNotNull();
    return Objects.requireNonNull(found, "asserted above");
  }
}
