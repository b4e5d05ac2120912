package io.fairway.testkit.uml;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The harness itself: exit codes and files come back, and a hung guest is killed, whole. */
class UmlHarnessTest {

  @Test
  void exitCodeOutputAndFilesComeBack() throws Exception {
    Uml.assumeAvailable();
    Path out = Path.of("target", "uml", "harness-exit");
    Uml.clean(out);
    Uml.Result r =
        Uml.builder()
            .command(
                "echo hello; echo oops >&2; cat /proc/net/ip_vs | head -1 > /run/out/ipvs.txt; exit 3")
            .outputDir(out)
            .timeout(Duration.ofMinutes(2))
            .run();
    assertThat(r.timedOut()).as(r.diagnostics()).isFalse();
    assertThat(r.exitCode()).isEqualTo(3);
    assertThat(r.stdout()).isEqualTo("hello\n");
    assertThat(r.stderr()).isEqualTo("oops\n");
    assertThat(r.file("ipvs.txt")).startsWith("IP Virtual Server version 1.2.1");
  }

  @Test
  void aGuestThatNeverFinishesIsKilledAtTheTimeout() throws Exception {
    Uml.assumeAvailable();
    Uml.Result r = Uml.builder().command("sleep 600").timeout(Duration.ofSeconds(10)).run();
    assertThat(r.timedOut()).isTrue();
    assertThat(r.exitCode()).isEqualTo(-1);
    assertThat(r.took()).isLessThan(Duration.ofSeconds(40));
    assertThat(
            ProcessHandle.current()
                .descendants()
                .filter(p -> p.info().command().orElse("").contains("linux.uml")))
        .as("UML processes left behind")
        .isEmpty();
  }
}
