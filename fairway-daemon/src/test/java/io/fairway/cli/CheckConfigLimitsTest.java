package io.fairway.cli;

import static io.fairway.cli.CliRun.run;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 16 at the command line: {@code check-config} on a bomb prints one error line naming the
 * line, the construct and the limit, exit 1 (it printed 571,532 lines, or an OutOfMemoryError and a
 * 27-line stack trace); a missing file says why; a NUL byte is shown.
 */
class CheckConfigLimitsTest {

  @Test
  void aBombIsOneLine(@TempDir Path dir) throws Exception {
    Path f =
        Files.writeString(
            dir.resolve("seq.conf"),
            "~SEQ(a,1,200) ~SEQ(b,1,200) "
                + "~SEQ(c,1,200) virtual_server 10.${a}.${b}.${c} 80 { lb_algo rr real_server 127.0.0.1 "
                + "8080 { weight 1 } }\n");
    CliRun r = run("check-config", "-f", f.toString());
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err().lines().toList())
        .singleElement()
        .asString()
        .startsWith(f + ":1: ~SEQ(a,1,200) goes past the limit of 1,000,000 words");
  }

  @Test
  void aMissingFileSaysWhy(@TempDir Path dir) {
    CliRun r = run("check-config", "-f", dir.resolve("nope.conf").toString());
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err().strip())
        .isEqualTo(
            dir.resolve("nope.conf") + ": cannot read file: no such file or directory (ENOENT)");
  }

  @Test
  void aNulInAValueIsShown(@TempDir Path dir) throws Exception {
    Path f =
        Files.writeString(
            dir.resolve("nul.conf"), "virtual_server 10.0.0.1 80 {\n  lb_algo rr\u0000\n}\n");
    CliRun r = run("check-config", "-f", f.toString());
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err())
        .contains("unknown scheduler 'rr\\u0000' (did you mean 'rr'?)")
        .doesNotContain("\u0000");
  }
}
