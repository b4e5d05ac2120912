package io.fairway.daemon.uml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fairway.testkit.ExternalPrograms;
import io.fairway.testkit.uml.Uml;
import java.io.InputStream;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Scale-out on the real kernel: two user-mode Linux kernels, directors A and B, on a {@code
 * uml_switch}, each running {@code fairway run} with the same file (a {@code mh} service, direct
 * routing to two real servers), as two nodes behind an ECMP router. The client's route to the VIP
 * plays the router: a long TCP stream opened through A is moved to B mid-stream. Without {@code
 * lvs_sloppy_tcp} B has never seen the connection begin and does not take it up; with it (both
 * directors reloaded), B schedules the moved stream by Maglev to the real server A chose, and it
 * flows on. Both streams run in the same two boots.
 */
class SloppyTcpHandoverUmlTest {
  private static final Map<String, String> REAL_SERVERS =
      Map.of("rs1", "10.99.0.20", "rs2", "10.99.0.21");

  private static Process switchProcess;
  private static Uml.Running a;
  private static Uml.Result aResult;
  private static Uml.Result b;
  private static Properties client;

  @BeforeAll
  static void boot() throws Exception {
    Uml.assumeAvailable();
    ExternalPrograms.requireThat(
        Files.isExecutable(Path.of("/usr/bin/uml_switch")),
        () -> "uml_switch is not installed (apt-get install uml-utilities)");
    Path scenario = scenario();
    // A short path: a Unix socket's name is at most 107 bytes.
    Path net = Files.createTempDirectory(Path.of("/tmp"), "sloppy-sw-");
    Path ctl = net.resolve("ctl");
    switchProcess =
        new ProcessBuilder("uml_switch", "-unix", ctl.toString(), "-hub")
            .redirectErrorStream(true)
            .redirectOutput(net.resolve("switch.log").toFile())
            .start();
    await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(ctl));
    a = director("a", "01", scenario, ctl);
    Uml.Running bRun = director("b", "02", scenario, ctl);
    b = bRun.await();
    if (b.exitCode() != 0) {
      // The conductor on B failed before telling A to stop: nothing else will.
      a.kill();
    }
    aResult = a.await();
    assertThat(b.exitCode())
        .as(b.diagnostics() + "\n--- client:\n" + b.file("client.log"))
        .isZero();
    client = new Properties();
    client.load(new StringReader(b.file("client.properties")));
    System.out.printf(
        "sloppy handover: A %d s, B %d s (boot to halt); after the move: %s ms to the reset"
            + " without sloppy_tcp, %s ms for %s lines with it%n",
        aResult.took().toSeconds(),
        b.took().toSeconds(),
        client.getProperty("off.after_ms"),
        client.getProperty("on.after_ms"),
        client.getProperty("on.answered_after"));
  }

  private static Path scenario() throws Exception {
    Path scenario = Files.createTempDirectory("sloppy-");
    for (String f :
        List.of("a.sh", "b.sh", "off.conf", "on.conf", "agent.py", "client.py", "echo.py")) {
      try (InputStream in = SloppyTcpHandoverUmlTest.class.getResourceAsStream("/sloppy/" + f)) {
        Files.copy(Objects.requireNonNull(in, f), scenario.resolve(f));
      }
    }
    Files.writeString(
        scenario.resolve("fairway.sh"),
        "#!/bin/sh\nexec "
            + Uml.javaCommand(Uml.testClasspath(), "io.fairway.cli.Main")
            + " \"$@\"\n");
    return scenario;
  }

  private static Uml.Running director(String name, String mac, Path scenario, Path ctl)
      throws Exception {
    Path out = Path.of("target", "uml-sloppy-" + name).toAbsolutePath();
    Uml.clean(out);
    return Uml.builder()
        .command(
            "sh "
                + Uml.quote(scenario.resolve(name + ".sh").toString())
                + " "
                + Uml.quote(scenario.toString()))
        .kernelArg("eth0=daemon,fe:fd:0a:63:01:" + mac + ",unix," + ctl)
        .kernelArg("umid=sloppy-" + name + "-" + ProcessHandle.current().pid())
        .outputDir(out)
        .timeout(Duration.ofMinutes(8))
        .start();
  }

  @AfterAll
  static void down() {
    if (a != null && a.alive()) {
      a.kill();
    }
    if (switchProcess != null) {
      switchProcess.destroy();
    }
  }

  @Test
  void withoutSloppyTcpTheDirectorThatDidNotSeeTheStreamBeginResetsIt() {
    String port = client.getProperty("off.port");
    String server = forwardedBy(b.file("off-a.txt"), port);
    assertThat(client.getProperty("off.before")).isEqualTo(name(server));
    assertThat(b.file("off-b-before.txt"))
        .contains("sloppy_tcp=0")
        .doesNotContain("10.99.0.10:" + port + " ");
    // IPVS schedules only a SYN then; B's own stack has the VIP and no such socket.
    assertThat(client.getProperty("off.result")).as(b.file("client.log")).isEqualTo("reset");
    assertThat(client.getProperty("off.answered_after")).isEqualTo("0");
    assertThat(b.file("off-b-after.txt")).doesNotContain("10.99.0.10:" + port + " ");
  }

  @Test
  void withSloppyTcpTheStreamFlowsOnThroughTheOtherDirectorToTheSameRealServer() {
    assertThat(b.file("a-sloppy.txt")).contains("sloppy_tcp=1");
    assertThat(b.file("b-sloppy.txt")).contains("sloppy_tcp=1");
    String port = client.getProperty("on.port");
    String server = forwardedBy(b.file("on-a.txt"), port);
    assertThat(b.file("on-b-before.txt")).doesNotContain("10.99.0.10:" + port + " ");
    assertThat(client.getProperty("on.result")).as(b.file("client.log")).isEqualTo("flowing");
    assertThat(client.getProperty("on.answered_after")).isEqualTo("10");
    assertThat(client.getProperty("on.before")).isEqualTo(name(server));
    assertThat(client.getProperty("on.after")).isEqualTo(name(server));
    assertThat(forwardedBy(b.file("on-b-after.txt"), port))
        .as("B's Maglev choice")
        .isEqualTo(server);
  }

  @Test
  void maglevSendsTheClientToOneRealServerWhicheverStreamAndDirector() {
    // mh without mh-port hashes the client's address only: both streams, both directors.
    assertThat(client.getProperty("on.before")).isEqualTo(client.getProperty("off.before"));
  }

  @Test
  void bothDirectorsPutTheSysctlBackWhenTheyStop() {
    for (String director : List.of("a-stop.txt", "b-stop.txt")) {
      assertThat(b.file(director)).contains("exit=0", "sloppy_tcp=0");
    }
    assertThat(b.file("b-run.log")).doesNotContain("Exception");
    assertThat(aResult.file("a-run.log")).doesNotContain("Exception");
  }

  /** The real server (address) an IPVS connection list sends the client's port to. */
  private static String forwardedBy(String conns, String port) {
    Matcher m =
        Pattern.compile(
                "TCP +\\S+ +ESTABLISHED +10\\.99\\.0\\.10:"
                    + port
                    + " +10\\.99\\.0\\.100:7000 +(10\\.99\\.0\\.2[01]):7000")
            .matcher(conns);
    assertThat(m.find()).as(conns).isTrue();
    return m.group(1);
  }

  private static String name(String server) {
    return REAL_SERVERS.entrySet().stream()
        .filter(e -> e.getValue().equals(server))
        .map(Map.Entry::getKey)
        .findFirst()
        .orElseThrow();
  }
}
