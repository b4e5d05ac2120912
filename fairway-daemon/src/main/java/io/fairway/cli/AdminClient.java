package io.fairway.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.fairway.daemon.Json;
import io.fairway.daemon.admin.AdminToken;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ProxySelector;
import java.net.URI;
import java.net.URLEncoder;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;

/**
 * The CLI's side of the admin listener: the address, the token (given, or the generated one in the
 * runtime directory), and one-line errors for everything that can go wrong.
 */
final class AdminClient {
  /**
   * A failure already phrased as the one line the user sees (without the {@code fairway:} prefix).
   */
  static final class Failure extends Exception {
    private static final long serialVersionUID = 1L;

    Failure(String message) {
      super(message);
    }
  }

  private final String admin;
  private final URI base;
  private final Path tokenFile;
  private final boolean tokenGiven;
  private final HttpClient http;

  /**
   * @throws IllegalArgumentException a bad {@code --admin}
   */
  AdminClient(AdminOptions o) {
    this.admin = o.admin;
    InetSocketAddress a = parseAddress(o.admin, true);
    String host = a.getAddress().getHostAddress();
    if (host.contains(":")) {
      host = "[" + host + "]";
    }
    this.base = URI.create("http://" + host + ":" + a.getPort());
    this.tokenGiven = o.tokenFile != null;
    this.tokenFile =
        o.tokenFile != null ? o.tokenFile : AdminToken.defaultFile(System.getenv(), a.getPort());
    this.http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .proxy(ProxySelector.of(null))
            .connectTimeout(Duration.ofSeconds(3))
            .build();
  }

  static String segment(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }

  /** GET, answered with 200, as a string (no token unless one was given). */
  String get(String path) throws Failure {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(10)).GET();
    if (tokenGiven) {
      b.header("Authorization", "Bearer " + token());
    }
    return check(send(b.build(), HttpResponse.BodyHandlers.ofString()));
  }

  /** POST a JSON body with the token; the answer's body on 2xx. */
  String post(String path, Object body, Duration timeout) throws Failure {
    String token;
    try {
      token = token();
    } catch (Failure noToken) {
      // With nothing running there is no token either; say the first thing first.
      get("/healthz");
      throw noToken;
    }
    HttpRequest req =
        HttpRequest.newBuilder(base.resolve(path))
            .timeout(timeout)
            .header("Authorization", "Bearer " + token)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofByteArray(Json.bytes(body)))
            .build();
    return check(send(req, HttpResponse.BodyHandlers.ofString()));
  }

  /** The event stream's lines, until the daemon closes it. */
  Stream<String> lines(String path) throws Failure {
    HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(path)).GET();
    if (tokenGiven) {
      b.header("Authorization", "Bearer " + token());
    }
    HttpResponse<Stream<String>> r = send(b.build(), HttpResponse.BodyHandlers.ofLines());
    if (r.statusCode() != 200) {
      throw new Failure(admin + " answered HTTP " + r.statusCode() + " for " + path);
    }
    return r.body();
  }

  private String token() throws Failure {
    try {
      return AdminToken.readToken(tokenFile);
    } catch (NoSuchFileException e) {
      throw new Failure(
          "no admin token at "
              + tokenFile
              + (tokenGiven
                  ? ""
                  : " (where fairway run writes it;"
                      + " give --admin-token-file if it was started with one)"));
    } catch (IOException e) {
      throw new Failure("cannot read the admin token: " + e.getMessage());
    }
  }

  private <T> HttpResponse<T> send(HttpRequest req, HttpResponse.BodyHandler<T> h) throws Failure {
    try {
      return http.send(req, h);
    } catch (ConnectException e) {
      throw new Failure("no fairway run is answering on " + admin + " (--admin)");
    } catch (java.net.http.HttpTimeoutException e) {
      throw new Failure(admin + " did not answer in time");
    } catch (IOException e) {
      throw new Failure(admin + ": " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Failure("interrupted");
    }
  }

  private String check(HttpResponse<String> r) throws Failure {
    int c = r.statusCode();
    if (c >= 200 && c < 300) {
      return r.body();
    }
    String msg = "HTTP " + c;
    try {
      JsonNode n = Json.mapper().readTree(r.body());
      if (n != null && n.hasNonNull("error")) {
        msg = n.get("error").asText();
      } else if (n != null && n.hasNonNull("reason")) {
        msg = n.get("result").asText() + ": " + n.get("reason").asText();
      }
    } catch (IOException e) {
      // not JSON (an old fairway, or something else on the port): the status says enough
    }
    if (c == 401) {
      throw new Failure(
          "the admin token was refused (read from " + tokenFile + "; --admin-token-file): " + msg);
    }
    throw new Failure(msg);
  }

  /**
   * {@code HOST:PORT} or {@code [V6]:PORT}, numeric; loopback unless {@code anyAddress}.
   *
   * @throws IllegalArgumentException with the reason
   */
  static InetSocketAddress parseAddress(String s, boolean anyAddress) {
    int colon = s.lastIndexOf(':');
    if (colon <= 0) {
      throw new IllegalArgumentException("expected HOST:PORT, got '" + s + "'");
    }
    String host = s.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    int port;
    try {
      port = Integer.parseInt(s.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("bad port in '" + s + "'");
    }
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port out of range in '" + s + "'");
    }
    InetAddress addr;
    try {
      if (!host.matches("[0-9.]+") && !host.contains(":") && !host.equals("localhost")) {
        throw new IllegalArgumentException("expected a numeric address, got '" + host + "'");
      }
      addr = InetAddress.getByName(host);
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("bad address '" + host + "'");
    }
    if (!anyAddress && !addr.isLoopbackAddress()) {
      throw new IllegalArgumentException(
          "a non-loopback address needs --admin-token-file, got '" + host + "'");
    }
    return new InetSocketAddress(addr, port);
  }
}
