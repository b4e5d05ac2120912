package io.fairway.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.testkit.ExternalPrograms;
import io.fairway.testkit.TestCerts;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * gRPC through Fairway to an HTTP/2 backend ({@code http2}): Debian's python3-grpcio as server and
 * client, with raw-bytes methods ({@code grpc_peer.py}). Unary and server-streaming calls pass,
 * trailers and all; a request's {@code grpc-timeout} ends the call at the proxy (the backend's
 * stream is reset, the client gets DEADLINE_EXCEEDED); a backend that dies mid-stream gives the
 * client an error status, not a hang.
 */
class GrpcPassThroughTest {
  static final String PYTHON = "/usr/bin/python3";

  @AutoClose final Cleanup cleanup = new Cleanup();
  @TempDir static Path dir;
  static Path script;

  @BeforeAll
  static void script() throws IOException {
    script = dir.resolve("grpc_peer.py");
    try (InputStream in = GrpcPassThroughTest.class.getResourceAsStream("grpc_peer.py")) {
      Files.write(script, in.readAllBytes());
    }
  }

  static void requireGrpc() {
    ExternalPrograms.require("python3", PYTHON);
    Path grpc = Path.of("/usr/lib/python3/dist-packages/grpc/__init__.py");
    ExternalPrograms.requireThat(
        Files.exists(grpc), () -> "python3-grpcio is not installed (looked for " + grpc + ")");
  }

  /** The Python gRPC server on a loopback port, its output in {@code log}. */
  // close() waits for what it stops; an interrupt there fails the test like any other error.
  @SuppressWarnings("try")
  private record Server(Process process, int port, Path log) implements AutoCloseable {
    String output() throws IOException {
      return Files.readString(log);
    }

    @Override
    public void close() throws InterruptedException {
      process.destroyForcibly();
      process.waitFor(5, TimeUnit.SECONDS);
    }
  }

  private Server server() throws Exception {
    requireGrpc();
    int port = io.fairway.testkit.FreePorts.loopback();
    Path log = Files.createTempFile(dir, "server", ".log");
    Process p =
        new ProcessBuilder(PYTHON, script.toString(), "server", Integer.toString(port))
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    Server s = cleanup.track(new Server(p, port, log));
    Awaitility.await("the gRPC server listening")
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(20))
        .until(() -> s.output().contains("ready") || !p.isAlive());
    assertThat(p.isAlive()).as("gRPC server started: %s", s.output()).isTrue();
    return s;
  }

  private InetSocketAddress fairway(Server s) throws Exception {
    return H2BackendTest.fairway(cleanup, new InetSocketAddress(Fixtures.LO, s.port()), null);
  }

  /** One call of the Python client through {@code vip}: its "NAME=STATUS:DETAIL" line. */
  private static String call(InetSocketAddress vip, String name) throws Exception {
    return call(vip, name, List.of());
  }

  /** As above, over TLS trusting {@code cert} for {@code host}. */
  private static String call(InetSocketAddress vip, String name, Path cert, String host)
      throws Exception {
    return call(vip, name, List.of(cert.toString(), host));
  }

  private static String call(InetSocketAddress vip, String name, List<String> tls)
      throws Exception {
    List<String> cmd =
        new ArrayList<>(
            List.of(PYTHON, script.toString(), "client", "127.0.0.1:" + vip.getPort(), name));
    cmd.addAll(tls);
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    p.getOutputStream().close();
    // A client left hanging is the failure this guards against: it must end well before this.
    boolean ended = p.waitFor(10, TimeUnit.SECONDS);
    if (!ended) {
      p.destroyForcibly();
    }
    assertThat(ended).as("the gRPC client %s ended", name).isTrue();
    return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
  }

  @Test
  void unaryAndServerStreamingCallsPassThrough() throws Exception {
    InetSocketAddress vip = fairway(server());
    assertThat(call(vip, "unary")).endsWith("unary=OK:hello");
    assertThat(call(vip, "stream")).endsWith("stream=OK:0,1,2,3,4");
  }

  /**
   * Two clients: the Python one, whose own deadline also ends the call, and curl, which has none,
   * so the DEADLINE_EXCEEDED it gets (before the server's answer, due after 3 s) can only come from
   * Fairway honouring the request's {@code grpc-timeout}. Either way the server sees its call
   * cancelled.
   */
  @Test
  void grpcTimeoutEndsTheCallAtTheProxy() throws Exception {
    ExternalPrograms.require("curl", "/usr/bin/curl");
    Server s = server();
    InetSocketAddress vip = fairway(s);
    assertThat(call(vip, "deadline")).startsWith("deadline=DEADLINE_EXCEEDED");
    Path body = dir.resolve("x.grpc");
    Files.write(body, new byte[] {0, 0, 0, 0, 1, 'x'}); // one uncompressed message: "x"
    long start = System.nanoTime();
    String r =
        Http2Test.curl(
            "-i",
            "--http2-prior-knowledge",
            "-H",
            "content-type: application/grpc",
            "-H",
            "te: trailers",
            "-H",
            "grpc-timeout: 300m",
            "--data-binary",
            "@" + body,
            "http://127.0.0.1:" + vip.getPort() + "/svc/Slow");
    long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    assertThat(r).contains("HTTP/2 200").contains("grpc-status: 4").contains("exit=0");
    assertThat(took).as("ms until the answer").isLessThan(2500);
    Awaitility.await("the server saw its calls cancelled")
        .atMost(Duration.ofSeconds(5))
        .until(() -> s.output().split("slow cancelled", -1).length - 1 >= 2);
  }

  /**
   * The same calls through a TLS listener: the gRPC client negotiates h2 by ALPN with Fairway,
   * which speaks h2c to the server.
   */
  @Test
  void callsPassThroughATlsListenerByAlpn() throws Exception {
    Server s = server();
    TestCerts.Pair edge =
        TestCerts.make(dir, "edge", TestCerts.Kind.EC_PKCS8, "edge.test", "edge.test");
    InetSocketAddress vip =
        H2BackendTest.front(
                cleanup,
                null,
                List.of(new InetSocketAddress(Fixtures.LO, s.port())),
                ProxyOptions.builder().ioThreads(1).build(),
                H2Proxy.tls(edge))
            .vip();
    assertThat(call(vip, "unary", edge.cert(), "edge.test")).endsWith("unary=OK:hello");
    assertThat(call(vip, "stream", edge.cert(), "edge.test")).endsWith("stream=OK:0,1,2,3,4");
    assertThat(call(vip, "deadline", edge.cert(), "edge.test"))
        .startsWith("deadline=DEADLINE_EXCEEDED");
  }

  @Test
  void aBackendDyingMidStreamGivesTheClientAnErrorStatus() throws Exception {
    InetSocketAddress vip = fairway(server());
    String r = call(vip, "die");
    assertThat(r).startsWith("die=").doesNotStartWith("die=OK");
    assertThat(r).startsWith("die=UNAVAILABLE");
  }

  /**
   * An HTTP/1.1 client that says {@code TE: trailers} gets gRPC's trailers in the chunked body, one
   * that does not gets the body without them; its own body, chunked or not, reaches the server as
   * DATA (the echo comes back).
   */
  @Test
  void anHttp11ClientWithTeTrailersGetsTheTrailers() throws Exception {
    ExternalPrograms.require("curl", "/usr/bin/curl");
    InetSocketAddress vip = fairway(server());
    Path body = dir.resolve("hello.grpc");
    byte[] message = new byte[100_000];
    java.util.Arrays.fill(message, (byte) 'q');
    java.io.ByteArrayOutputStream framed = new java.io.ByteArrayOutputStream();
    framed.write(new byte[] {0, 0, 1, (byte) 0x86, (byte) 0xa0}); // 100000 bytes follow
    framed.write(message);
    Files.write(body, framed.toByteArray());
    Path out = dir.resolve("echo.out");
    String r =
        Http2Test.curl(
            "-i",
            "--http1.1",
            "-o",
            out.toString(),
            "-w",
            "%{size_download}",
            "-H",
            "content-type: application/grpc",
            "-H",
            "te: trailers",
            "-H",
            "transfer-encoding: chunked",
            "--data-binary",
            "@" + body,
            "http://127.0.0.1:" + vip.getPort() + "/svc/Echo");
    String got = Files.readString(out, StandardCharsets.ISO_8859_1);
    assertThat(got).startsWith("HTTP/1.1 200").contains("grpc-status: 0");
    assertThat(got).contains(new String(message, StandardCharsets.ISO_8859_1));
    assertThat(r).contains("exit=0");
    // Without TE: trailers the same answer comes without them.
    Http2Test.curl(
        "-i",
        "--http1.1",
        "-o",
        out.toString(),
        "-H",
        "content-type: application/grpc",
        "--data-binary",
        "@" + body,
        "http://127.0.0.1:" + vip.getPort() + "/svc/Echo");
    String without = Files.readString(out, StandardCharsets.ISO_8859_1);
    assertThat(without).startsWith("HTTP/1.1 200").doesNotContain("grpc-status");
    assertThat(without).contains(new String(message, StandardCharsets.ISO_8859_1));
  }
}
