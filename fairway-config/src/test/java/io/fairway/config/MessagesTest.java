package io.fairway.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 16: an unreadable file says why (errno name), and input quoted in a message shows its
 * invisible characters escaped, so {@code 'rr\u0000'} is not printed as {@code 'rr'}.
 */
class MessagesTest {

  static String error(String text) {
    ConfigException e = catchThrowableOfType(ConfigException.class, () -> Fixtures.parse(text));
    assertThat(e).as("expected a ConfigException").isNotNull();
    return e.getMessage();
  }

  @Test
  void aNulInAKeywordValueIsShownEscaped() {
    assertThat(error("virtual_server 10.0.0.1 80 {\n  lb_algo rr\u0000\n}\n"))
        .startsWith("test.conf:2: unknown scheduler 'rr\\u0000' (did you mean 'rr'?)")
        .endsWith("  | lb_algo rr\\u0000");
  }

  @Test
  void aNoBreakSpaceAndControlsAreShownEscaped() {
    String m = error("virtual_server 10.0.0.1 80 {\n  lb_algo\u00a0rr\n  \u001b[31mweight 1\n}\n");
    assertThat(m).contains("'lb_algo\\u00a0rr'").contains("\\u001b[31mweight");
    assertThat(m.chars().filter(c -> (c < 0x20 && c != '\n') || c == 0xa0)).isEmpty();
  }

  @Test
  void zeroWidthAndBomAreShownEscaped() {
    assertThat(Printable.escape("\ufeffglobal_defs\u200b")).isEqualTo("\\ufeffglobal_defs\\u200b");
    assertThat(Printable.escape("plain \"text\" \\# ok\twith tab"))
        .isEqualTo("plain \"text\" \\# ok\twith tab");
    assertThat(Printable.escape("caf\u00e9 \u4e2d")).isEqualTo("caf\u00e9 \u4e2d");
  }

  @Test
  void aMissingFileSaysEnoent(@TempDir Path dir) {
    assertThat(fileError(dir.resolve("nope.conf")))
        .isEqualTo(
            dir.resolve("nope.conf") + ": cannot read file: no such file or directory (ENOENT)");
  }

  @Test
  void aDirectorySaysEisdir(@TempDir Path dir) {
    assertThat(fileError(dir)).isEqualTo(dir + ": cannot read file: it is a directory (EISDIR)");
  }

  @Test
  void aPathThroughAFileSaysEnotdir(@TempDir Path dir) throws Exception {
    Files.writeString(dir.resolve("f"), "");
    assertThat(fileError(dir.resolve("f/k.conf")))
        .isEqualTo(
            dir.resolve("f/k.conf")
                + ": cannot read file: a part of the path is not a directory (ENOTDIR)");
  }

  @Test
  void anUnreadableFileSaysEacces(@TempDir Path dir) throws Exception {
    Path f = dir.resolve("secret.conf");
    Files.writeString(f, "global_defs {\n}\n");
    Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("---------"));
    // root reads anything: then the file loads, and there is nothing to report.
    if (Files.isReadable(f)) {
      assertThat(KeepalivedConfig.parse(f, Fixtures.OPTIONS).config()).isNotNull();
      return;
    }
    assertThat(fileError(f)).isEqualTo(f + ": cannot read file: permission denied (EACCES)");
  }

  @Test
  void anIncludedDirectoryIsNamed(@TempDir Path dir) throws Exception {
    Files.createDirectories(dir.resolve("conf.d"));
    Files.writeString(dir.resolve("main.conf"), "include conf.d\n");
    assertThat(fileError(dir.resolve("main.conf")))
        .isEqualTo(
            dir.resolve("main.conf")
                + ":1: include: '"
                + dir.resolve("conf.d")
                + "' is not a regular file  | include conf.d");
  }

  @Test
  void aFileNameWithAControlCharacterIsShownEscaped(@TempDir Path dir) {
    Path f = dir.resolve("bad\u0007name.conf");
    assertThat(fileError(f)).startsWith(dir + "/bad\\u0007name.conf: cannot read file:");
  }

  static String fileError(Path f) {
    ConfigException e =
        catchThrowableOfType(
            ConfigException.class, () -> KeepalivedConfig.parse(f, Fixtures.OPTIONS));
    assertThat(e).as("expected a ConfigException").isNotNull();
    return e.getMessage();
  }
}
