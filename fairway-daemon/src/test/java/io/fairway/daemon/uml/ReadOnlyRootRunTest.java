package io.fairway.daemon.uml;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.testkit.ExternalPrograms;
import io.fairway.testkit.uml.Uml;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code fairway run} on a read-only root with no writable /tmp (user-mode Linux boots on the
 * host's root read-only) and without the harness's {@code -Djava.io.tmpdir}/{@code -Djna.tmpdir}:
 * JNA's native library goes to {@code $RUNTIME_DIRECTORY}, as under the systemd unit; without it,
 * one line says what is needed. One boot runs resources/readonly/readonly.sh.
 */
class ReadOnlyRootRunTest {
  private static Uml.Result r;

  /** The harness's JVM options less the temp-directory ones this test is about. */
  static List<String> jvmOptions() {
    return Uml.JVM_OPTIONS.stream()
        .filter(o -> !o.startsWith("-Djava.io.tmpdir=") && !o.startsWith("-Djna.tmpdir="))
        .toList();
  }

  @BeforeAll
  static void boot() throws Exception {
    Uml.assumeAvailable();
    String python = "/usr/bin/python3";
    if (!Files.isExecutable(Path.of(python))) {
      Process p = new ProcessBuilder("python3", "-c", "import sys; print(sys.executable)").start();
      python = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      boolean found = p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
      ExternalPrograms.requireThat(found, () -> "python3 is not installed");
    }
    Path scenario = Files.createTempDirectory("pkg-readonly-");
    for (String f : List.of("readonly.sh", "kernel.conf", "userspace.conf", "hello.txt")) {
      try (InputStream in = ReadOnlyRootRunTest.class.getResourceAsStream("/readonly/" + f)) {
        Files.copy(Objects.requireNonNull(in, f), scenario.resolve(f));
      }
    }
    Files.writeString(scenario.resolve("python"), python + "\n");
    StringBuilder java =
        new StringBuilder(
            Uml.quote(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
    jvmOptions().forEach(o -> java.append(' ').append(Uml.quote(o)));
    java.append(" -cp ").append(Uml.quote(Uml.testClasspath())).append(" io.fairway.cli.Main");
    Files.writeString(scenario.resolve("fairway.sh"), "#!/bin/sh\nexec " + java + " \"$@\"\n");
    Path out = Path.of("target", "uml-readonly").toAbsolutePath();
    Uml.clean(out);
    r =
        Uml.builder()
            .command(
                "sh "
                    + Uml.quote(scenario.resolve("readonly.sh").toString())
                    + " "
                    + Uml.quote(scenario.toString()))
            .outputDir(out)
            .timeout(Duration.ofMinutes(4))
            .run();
    assertThat(r.exitCode()).as(r.diagnostics()).isZero();
  }

  @Test
  void theRootAndTmpAreReadOnly() {
    assertThat(r.file("tmp.txt").strip()).isEqualTo("read-only");
  }

  @Test
  void withoutARuntimeDirectoryOneLineSaysWhatJnaNeeds() {
    assertThat(r.file("nort.code").strip()).isEqualTo("1");
    assertThat(r.file("nort.err").strip().lines()).hasSize(1);
    assertThat(r.file("nort.err"))
        .contains("cannot load JNA's native library")
        .contains("RuntimeDirectory=")
        .contains("-Djna.tmpdir=")
        .doesNotContain("\tat ");
  }

  @Test
  void theKernelTableIsInstalledWithTheRuntimeDirectory() {
    assertThat(r.file("kernel-table.txt").lines())
        .as(r.file("kernel.log"))
        .containsExactly("-A -t 10.16.0.1:80 -s rr", "-a -t 10.16.0.1:80 -r 10.16.1.1:80 -m -w 1");
    assertThat(r.file("kernel.code").strip()).as(r.file("kernel.log")).isEqualTo("0");
  }

  @Test
  void theUserspaceProxyServesWithTheRuntimeDirectory() {
    assertThat(r.file("served.txt")).as(r.file("user.log")).isEqualTo("served through fairway\n");
    assertThat(r.file("user.code").strip()).as(r.file("user.log")).isEqualTo("0");
    assertThat(r.file("user.log")).doesNotContain("cannot load JNA").doesNotContain("\tat ");
  }
}
