package io.fairway.cli;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code fairway status}: the running table like {@code ipvsadm -Ln}, with health and reasons. */
@Command(
    name = "status",
    mixinStandardHelpOptions = true,
    description = {
      "Print the table of a running 'fairway run' like ipvsadm -Ln, with each real server's",
      "health and the reason for it (the checker and what it saw)."
    })
public final class StatusCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Option(names = "--admin", paramLabel = "HOST:PORT", defaultValue = "127.0.0.1:9107",
      description = "admin endpoint of the running fairway (default ${DEFAULT-VALUE})")
  String admin;

  @Override
  public Integer call() throws Exception {
    InetSocketAddress address;
    try {
      address = parseAddress(admin);
    } catch (IllegalArgumentException e) {
      spec.commandLine().getErr().println("fairway: --admin: " + e.getMessage());
      return Main.EXIT_USAGE;
    }
    String host = address.getAddress().getHostAddress();
    if (host.contains(":")) {
      host = "[" + host + "]";
    }
    HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .proxy(java.net.ProxySelector.of(null)).connectTimeout(Duration.ofSeconds(3)).build();
    HttpRequest req = HttpRequest.newBuilder(URI.create("http://" + host + ":" + address.getPort() + "/status"))
        .timeout(Duration.ofSeconds(10)).GET().build();
    try {
      HttpResponse<String> r = client.send(req, HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() != 200) {
        spec.commandLine().getErr().println("fairway: " + admin + " answered HTTP " + r.statusCode());
        return 1;
      }
      spec.commandLine().getOut().print(r.body());
      spec.commandLine().getOut().flush();
      return 0;
    } catch (ConnectException e) {
      spec.commandLine().getErr().println("fairway: no fairway run is answering on " + admin + " (--admin)");
      return 1;
    } catch (IOException e) {
      spec.commandLine().getErr().println("fairway: " + admin + ": " + e.getMessage());
      return 1;
    }
  }

  /** {@code HOST:PORT} or {@code [V6]:PORT}, numeric and loopback. */
  static InetSocketAddress parseAddress(String s) {
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
        throw new IllegalArgumentException("expected a numeric loopback address, got '" + host + "'");
      }
      addr = InetAddress.getByName(host);
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("bad address '" + host + "'");
    }
    if (!addr.isLoopbackAddress()) {
      throw new IllegalArgumentException("must be a loopback address, got '" + host + "'");
    }
    return new InetSocketAddress(addr, port);
  }
}
