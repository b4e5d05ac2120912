package io.fairway.dist;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.cli.Main;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
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
        .containsExactlyInAnyOrder("/etc/fairway/keepalived.conf", "/etc/default/fairway");
    assertThat(Deb.contents())
        .contains(
            "/usr/bin/fairway",
            "/usr/share/fairway/fairway.jar",
            "/usr/share/fairway/prometheus/fairway.rules.yml",
            "/usr/share/fairway/grafana/fairway.json",
            "/lib/systemd/system/fairway.service",
            "/lib/systemd/system/fairway-userspace.service",
            "/usr/share/bash-completion/completions/fairway",
            "/usr/share/doc/fairway/changelog.gz",
            "/usr/share/doc/fairway/copyright");
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
