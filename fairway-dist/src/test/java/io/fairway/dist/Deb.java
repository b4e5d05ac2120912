package io.fairway.dist;

import io.fairway.testkit.ExternalPrograms;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The package this build made, and the Debian tools the tests inspect it with. */
final class Deb {
  private Deb() {}

  /** The .deb (failsafe passes its path; the package phase built it). */
  static Path file() {
    String p = System.getProperty("fairway.deb");
    assertThat(p).as("system property fairway.deb (set by the failsafe configuration)").isNotNull();
    Path deb = Path.of(p);
    assertThat(deb).as("the package built in the package phase").isRegularFile();
    return deb;
  }

  /**
   * Skips the test when {@code program} is not installed, except under {@code CI=true}, where a
   * missing program fails it: CI installs every one of them.
   */
  static void require(String program) {
    boolean found = false;
    for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(File.pathSeparator)) {
      found |= Files.isExecutable(Path.of(dir, program));
    }
    boolean present = found;
    ExternalPrograms.requireThat(present, () -> program + " is not installed");
  }

  /** A finished program: exit code and what it printed (stdout and stderr together). */
  record Run(int code, String output) {}

  static Run run(List<String> command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(5, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new AssertionError(command + " did not finish in 5 minutes: " + out);
    }
    return new Run(p.exitValue(), out);
  }

  static Run run(String... command) throws IOException, InterruptedException {
    return run(List.of(command));
  }

  /** {@code dpkg-deb -x}: the package unpacked into {@code root}, as {@code dpkg -i} would lay it out. */
  static Path unpack(Path root) throws IOException, InterruptedException {
    require("dpkg-deb");
    Run r = run("dpkg-deb", "-x", file().toString(), root.toString());
    assertThat(r.code()).as(r.output()).isZero();
    return root;
  }

  static List<String> contents() throws IOException, InterruptedException {
    require("dpkg-deb");
    Run r = run("dpkg-deb", "--fsys-tarfile", file().toString());
    assertThat(r.code()).isZero();
    Run list = run("sh", "-c", "dpkg-deb --fsys-tarfile \"$1\" | tar -t", "sh", file().toString());
    assertThat(list.code()).as(list.output()).isZero();
    List<String> paths = new ArrayList<>();
    list.output().lines().map(l -> l.replaceFirst("^\\./", "/")).forEach(paths::add);
    return paths;
  }
}
