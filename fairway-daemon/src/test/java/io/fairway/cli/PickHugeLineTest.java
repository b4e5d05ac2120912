package io.fairway.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #31: {@code fairway pick} on a key line far beyond any real key answers one line naming the
 * line, and reads no more of it than the bound (a 200 MB line was an {@code OutOfMemoryError} with
 * a stack trace).
 */
class PickHugeLineTest {
  @TempDir Path tmp;

  /** {@code count} bytes of 'x' produced as read, then a newline: no 200 MB array in the test. */
  static InputStream hugeLine(long count) {
    return new InputStream() {
      long left = count;
      boolean done;

      @Override
      public int read() {
        if (left > 0) {
          left--;
          return 'x';
        }
        if (!done) {
          done = true;
          return '\n';
        }
        return -1;
      }

      @Override
      public int read(byte[] b, int off, int len) {
        if (left <= 0) {
          int c = read();
          if (c < 0) {
            return -1;
          }
          b[off] = (byte) c;
          return 1;
        }
        int n = (int) Math.min(len, left);
        java.util.Arrays.fill(b, off, off + n, (byte) 'x');
        left -= n;
        return n;
      }
    };
  }

  @Test
  void aTwoHundredMegabyteLineOnStdinIsOneLineNamingIt() {
    CliRun r =
        CliRun.run(
            hugeLine(200L << 20),
            "pick",
            "-f",
            PickCommandTest.conf(),
            "--vs",
            "web",
            "--keys",
            "-");
    PickCommandTest.assertOneLineError(r, "<stdin>:1:", "longer than 65536");
  }

  @Test
  void aKeyJustOverTheBoundInAFileNamesFileAndLine() throws Exception {
    Path keys = tmp.resolve("keys.txt");
    String ok = "x".repeat(65536);
    Files.writeString(keys, "/a\r\n" + ok + "\n" + ok + "y\n/b\n", StandardCharsets.UTF_8);
    CliRun r =
        CliRun.run("pick", "-f", PickCommandTest.conf(), "--vs", "web", "--keys", keys.toString());
    PickCommandTest.assertOneLineError(r, keys + ":3:", "longer than 65536");
    assertThat(r.lines()).hasSize(2);
  }
}
