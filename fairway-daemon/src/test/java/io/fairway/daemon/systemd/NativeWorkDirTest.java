package io.fairway.daemon.systemd;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class NativeWorkDirTest {
  @Test
  void theRuntimeDirectoryIsWhereJnaAndNettyUnpack() {
    Properties p = new Properties();
    assertThat(NativeWorkDir.configure(Map.of("RUNTIME_DIRECTORY", "/run/fairway"), p))
        .contains("/run/fairway");
    assertThat(p)
        .containsEntry("jna.tmpdir", "/run/fairway")
        .containsEntry("io.netty.native.workdir", "/run/fairway");
  }

  @Test
  void ofSeveralRuntimeDirectoriesTheFirst() {
    Properties p = new Properties();
    NativeWorkDir.configure(Map.of("RUNTIME_DIRECTORY", "/run/fairway:/run/other"), p);
    assertThat(p).containsEntry("jna.tmpdir", "/run/fairway");
  }

  @Test
  void whatTheOperatorSetWins() {
    Properties p = new Properties();
    p.setProperty("jna.tmpdir", "/var/lib/x");
    NativeWorkDir.configure(Map.of("RUNTIME_DIRECTORY", "/run/fairway"), p);
    assertThat(p)
        .containsEntry("jna.tmpdir", "/var/lib/x")
        .containsEntry("io.netty.native.workdir", "/run/fairway");
  }

  @Test
  void withoutARuntimeDirectoryNothingChanges() {
    Properties p = new Properties();
    assertThat(NativeWorkDir.configure(Map.of(), p)).isEmpty();
    assertThat(p).isEmpty();
  }

  @Test
  void theErrorNamesTheCauseAndWhatToSet() {
    String line =
        NativeWorkDir.explain(
            new NoClassDefFoundError("x")
                .initCause(new UnsatisfiedLinkError("Failed to create temporary file")));
    assertThat(line)
        .contains("Failed to create temporary file")
        .contains("RuntimeDirectory=")
        .contains("-Djna.tmpdir=")
        .doesNotContain("\n");
  }
}
