package io.fairway.daemon.discovery;

import static org.awaitility.Awaitility.await;

import io.fairway.testkit.ExternalPrograms;
import io.fairway.testkit.FreePorts;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * BIND's {@code named} on 127.0.0.1 and a port of its own, authoritative for {@code pool.test}, a
 * dynamic zone that {@code nsupdate} changes from 127.0.0.1 while it runs (no restart). Its UDP
 * answers are at most 512 bytes, so a large answer comes truncated and must be asked again over
 * TCP, and it rotates the order of every record set it sends.
 */
public final class Named implements AutoCloseable {
  public final int port;
  private final Path dir;
  private Process process;

  /**
   * @param zone the zone's records after its SOA and NS, one per line, names relative to pool.test
   */
  public Named(Path dir, String zone) throws Exception {
    Path named = ExternalPrograms.require("named (bind9)", "/usr/sbin/named");
    ExternalPrograms.require("nsupdate (bind9-dnsutils)", "/usr/bin/nsupdate");
    this.dir = dir;
    this.port = FreePorts.loopback();
    Files.writeString(
        dir.resolve("pool.test.db"),
        "$TTL 1\n@ IN SOA ns.pool.test. admin.pool.test. 1 60 60 600 1\n@ IN NS ns.pool.test.\n"
            + "ns IN A 127.0.0.1\n"
            + zone);
    String d = dir.toAbsolutePath().toString();
    Files.writeString(
        dir.resolve("named.conf"),
        "options {\n  directory \""
            + d
            + "\";\n  pid-file \""
            + d
            + "/named.pid\";\n  session-keyfile \""
            + d
            + "/session.key\";\n  listen-on port "
            + port
            + " { 127.0.0.1; };\n  listen-on-v6 { none; };\n  recursion no;\n"
            + "  dnssec-validation no;\n  max-udp-size 512;\n"
            + "  rrset-order { order cyclic; };\n};\n"
            + "controls { };\n"
            + "zone \"pool.test\" {\n  type primary;\n  file \""
            + d
            + "/pool.test.db\";\n  allow-update { 127.0.0.1; };\n};\n");
    process =
        new ProcessBuilder(named.toString(), "-g", "-4", "-n", "1", "-c", d + "/named.conf")
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("named.log").toFile())
            .start();
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () -> {
              if (!process.isAlive()) {
                throw new IllegalStateException(
                    "named exited: " + Files.readString(dir.resolve("named.log")));
              }
              return Files.readString(dir.resolve("named.log")).contains("running");
            });
  }

  /** Sends one dynamic update ({@code update add ...} / {@code update delete ...} lines). */
  public void update(String... lines) throws Exception {
    StringBuilder in = new StringBuilder("server 127.0.0.1 " + port + "\nzone pool.test\n");
    for (String l : lines) {
      in.append(l).append('\n');
    }
    in.append("send\n");
    Path script = Files.createTempFile(dir, "nsupdate", ".txt");
    Files.writeString(script, in.toString());
    Process p =
        new ProcessBuilder("/usr/bin/nsupdate", "-v", script.toString())
            .redirectErrorStream(true)
            .start();
    if (!p.waitFor(30, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IllegalStateException("nsupdate did not finish");
    }
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (p.exitValue() != 0) {
      throw new IllegalStateException("nsupdate failed: " + out);
    }
  }

  /** The answer section of a UDP query that does not retry over TCP, and its header flags. */
  public String digUdp(String name, String type) throws IOException, InterruptedException {
    Path dig = ExternalPrograms.require("dig (bind9-dnsutils)", "/usr/bin/dig");
    Process p =
        new ProcessBuilder(
                List.of(
                    dig.toString(),
                    "@127.0.0.1",
                    "-p",
                    Integer.toString(port),
                    "+ignore",
                    "+notcp",
                    "+bufsize=4096",
                    "+tries=1",
                    "+time=5",
                    name,
                    type))
            .redirectErrorStream(true)
            .start();
    if (!p.waitFor(30, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IllegalStateException("dig did not finish");
    }
    return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
  }

  /** Stops the name server (it answers nothing from then on). */
  public void stop() throws InterruptedException {
    if (process != null && process.isAlive()) {
      process.destroy();
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor();
      }
    }
  }

  @Override
  public void close() {
    try {
      stop();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // the caller's to see; the process is not waited for
    }
  }
}
