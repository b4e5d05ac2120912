package io.fairway.dist;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.cli.Main;
import io.fairway.testkit.ExternalPrograms;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The Debian package as lintian, dpkg and systemd see it. */
class PackageIT {
  @TempDir Path dir;

  @Test
  void lintianReportsNoErrors() throws Exception {
    Deb.require("lintian");
    Deb.Run r = Deb.run("lintian", "--fail-on", "error", Deb.file().toString());
    assertThat(r.code()).as(r.output()).isZero();
    assertThat(r.output().lines().filter(l -> l.startsWith("E: "))).as(r.output()).isEmpty();
  }

  @Test
  void dependsOnAJava17RuntimeAndKeepsTheConfigurationAsConffiles() throws Exception {
    Deb.require("dpkg-deb");
    Deb.Run depends = Deb.run("dpkg-deb", "-f", Deb.file().toString(), "Depends");
    assertThat(depends.output().strip())
        .isEqualTo("openjdk-17-jre-headless | java17-runtime-headless");
    Deb.Run conffiles = Deb.run("dpkg-deb", "-I", Deb.file().toString(), "conffiles");
    assertThat(conffiles.output().lines())
        .containsExactlyInAnyOrder(
            "/etc/fairway/keepalived.conf", "/etc/default/fairway", "/etc/logrotate.d/fairway");
    assertThat(Deb.contents())
        .contains(
            "/usr/bin/fairway",
            "/usr/share/fairway/fairway.jar",
            "/usr/share/fairway/prometheus/fairway.rules.yml",
            "/usr/share/fairway/grafana/fairway.json",
            "/lib/systemd/system/fairway.service",
            "/lib/systemd/system/fairway-userspace.service",
            "/etc/logrotate.d/fairway",
            "/usr/share/bash-completion/completions/fairway",
            "/usr/share/doc/fairway/changelog.gz",
            "/usr/share/doc/fairway/copyright");
  }

  /**
   * The package's logrotate file, run by the host's logrotate on a copy of it pointed at a
   * directory of the test's: it rotates the access logs and its postrotate sends SIGUSR1 to both
   * units (a stand-in {@code systemctl} on the PATH notes what it was asked), which makes Fairway
   * reopen them (AccessLogRunTest).
   */
  @Test
  void theLogrotateFileRotatesTheAccessLogsAndSignalsBothUnits() throws Exception {
    Path logrotate = ExternalPrograms.require("logrotate", "/usr/sbin/logrotate");
    Path root = Deb.unpack(dir.resolve("root"));
    String shipped = Files.readString(root.resolve("etc/logrotate.d/fairway"));
    assertThat(shipped).contains("/var/log/fairway/*.log {");
    Path logs = Files.createDirectory(dir.resolve("logs"));
    Path conf = dir.resolve("logrotate.conf");
    Files.writeString(conf, shipped.replace("/var/log/fairway/", logs + "/"));
    Files.writeString(logs.resolve("access.log"), "a line\n");
    Files.writeString(logs.resolve("json.log"), "{}\n");
    Path bin = Files.createDirectory(dir.resolve("bin"));
    Path calls = dir.resolve("systemctl.calls");
    Path systemctl = bin.resolve("systemctl");
    Files.writeString(systemctl, "#!/bin/sh\necho \"$*\" >> " + calls + "\n");
    Files.setPosixFilePermissions(systemctl, PosixFilePermissions.fromString("rwxr-xr-x"));

    ProcessBuilder pb =
        new ProcessBuilder(
                logrotate.toString(),
                "--verbose",
                "--force",
                "--state",
                dir.resolve("logrotate.state").toString(),
                conf.toString())
            .redirectErrorStream(true);
    pb.environment().put("PATH", bin + ":/usr/bin:/bin");
    Process p = pb.start();
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(1, TimeUnit.MINUTES)).as("logrotate finished").isTrue();
    assertThat(p.exitValue()).as(out).isZero();

    assertThat(logs.resolve("access.log.1")).hasContent("a line");
    assertThat(logs.resolve("json.log.1")).hasContent("{}");
    // nocreate: Fairway makes the new files when SIGUSR1 reopens them.
    assertThat(logs.resolve("access.log")).doesNotExist();
    // sharedscripts: one postrotate for every file, each unit signalled once.
    assertThat(Files.readAllLines(calls))
        .as(out)
        .containsExactly(
            "kill --kill-whom=main --signal=USR1 fairway.service",
            "kill --kill-whom=main --signal=USR1 fairway-userspace.service");
  }

  /** Every command of the tree, including those other branches add, has its page. */
  @Test
  void everyCommandHasAManPage() throws Exception {
    List<String> pages =
        Deb.contents().stream()
            .filter(p -> p.startsWith("/usr/share/man/man1/") && p.endsWith(".1.gz"))
            .map(p -> p.substring("/usr/share/man/man1/".length(), p.length() - ".1.gz".length()))
            .toList();
    List<String> commands =
        Stream.concat(Stream.of("fairway"), names(Main.commandTree(), "fairway")).toList();
    assertThat(pages).containsExactlyInAnyOrderElementsOf(commands);
  }

  private static Stream<String> names(CommandLine cl, String prefix) {
    return cl.getSubcommands().entrySet().stream()
        .filter(e -> e.getKey().equals(e.getValue().getCommandName())) // aliases share a page
        .filter(e -> !e.getValue().getCommandSpec().usageMessage().hidden()) // training-run
        .flatMap(
            e -> {
              String name = prefix + "-" + e.getKey();
              return Stream.concat(Stream.of(name), names(e.getValue(), name));
            });
  }

  @Test
  void theUnitsPassSystemdAnalyzeVerify() throws Exception {
    Deb.require("systemd-analyze");
    Path root = Deb.unpack(dir.resolve("root"));
    // verify --root resolves every dependency (multi-user.target, network-online.target, ...) and
    // every ExecStart= binary inside the root: give it the host's own units beside the package's.
    Path units = root.resolve("lib/systemd/system");
    Path host = Path.of("/lib/systemd/system");
    try (Stream<Path> s = Files.list(host)) {
      for (Path u : (Iterable<Path>) s::iterator) {
        Path target = units.resolve(u.getFileName().toString());
        if (!Files.isSymbolicLink(u) && !Files.exists(target)) { // links: masks and aliases
          Files.copy(u, target, java.nio.file.LinkOption.NOFOLLOW_LINKS);
        }
      }
    }
    Deb.Run r =
        Deb.run(
            "systemd-analyze",
            "verify",
            "--man=no",
            "--root=" + root,
            units.resolve("fairway.service").toString(),
            units.resolve("fairway-userspace.service").toString());
    assertThat(r.code()).as(r.output()).isZero();
    assertThat(r.output()).as("systemd-analyze warnings").isBlank();
  }
}
