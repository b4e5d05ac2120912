package io.fairway.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Expansion is charged as it happens: every bomb below stands for billions of lines and ends in one
 * error at the line that holds it, naming the construct and the limit. Small limits keep these
 * fast; {@link BombTest} runs the same bombs at the default limits in a small heap.
 */
class BudgetTest {

  static final ParseLimits SMALL = new ParseLimits(64 << 10, 50, 64 << 10, 5_000);
  static final ParseOptions OPTIONS = new ParseOptions("testhost", Map.of(), SMALL);

  /** The one-line bomb from issue 16: 8,000,000 virtual servers. */
  static final String TRIPLE_SEQ =
      "~SEQ(a,1,200) ~SEQ(b,1,200) ~SEQ(c,1,200) virtual_server "
          + "10.${a}.${b}.${c} 80 { real_server 127.0.0.1 8080 { weight 1 } }\n";

  /** Ten levels of ten uses of a multi-line definition: 10^10 real servers. */
  static String macroBomb() {
    StringBuilder sb = new StringBuilder("$L0=real_server 127.0.0.1 80 {\\\n  weight 1\\\n}\n");
    for (int i = 1; i <= 10; i++) {
      sb.append("$L").append(i).append("=\\\n");
      for (int k = 0; k < 10; k++) {
        sb.append("$L").append(i - 1).append(k < 9 ? "\\\n" : "\n");
      }
    }
    return sb.append("virtual_server 10.0.0.1 80 {\n  lb_algo rr\n$L10\n}\n").toString();
  }

  static ConfigException refused(String text) {
    ConfigException e =
        catchThrowableOfType(
            ConfigException.class,
            () -> KeepalivedConfig.parse("bomb.conf", text, Path.of("."), OPTIONS));
    assertThat(e).as("expected a ConfigException").isNotNull();
    return e;
  }

  @Test
  void tripleRepeaterStopsAtTheWordLimit() {
    ConfigException e = refused(TRIPLE_SEQ);
    assertThat(e.errors()).hasSize(1);
    assertThat(e.getMessage())
        .startsWith("bomb.conf:1: ~SEQ(a,1,200) goes past the limit of 5,000 words");
  }

  @Test
  void multiLineDefinitionBombNamesTheDefinitionWhereItIsUsed() {
    String bomb = macroBomb();
    int useLine = (int) bomb.lines().takeWhile(l -> !l.equals("$L10")).count() + 1;
    ConfigException e = refused(bomb);
    assertThat(e.errors()).hasSize(1);
    assertThat(e.getMessage()).startsWith("bomb.conf:" + useLine + ": $L10 goes past the limit of");
  }

  @Test
  void expansionThatProducesNothingStillEnds() {
    // Every line is for another host, so nothing is emitted: only the line charge stops it.
    ConfigException e = refused("~SEQ(a,1,1000000) ~SEQ(b,1,1000000) @otherhost x $a $b\n");
    assertThat(e.getMessage())
        .startsWith(
            "bomb.conf:1: ~SEQ(a,1,1000000) goes past the limit of 64 KiB of expanded text");
  }

  @Test
  void emptyDefinitionsUsedBillionsOfTimesEnd() {
    StringBuilder sb = new StringBuilder("$E=\n$L0=\\\n$E\\\n$E\n");
    for (int i = 1; i <= 30; i++) {
      sb.append("$L")
          .append(i)
          .append("=\\\n$L")
          .append(i - 1)
          .append("\\\n$L")
          .append(i - 1)
          .append('\n');
    }
    ConfigException e = refused(sb.append("$L30\n").toString());
    assertThat(e.getMessage()).contains("$L30 goes past the limit of 64 KiB of expanded text");
  }

  @Test
  void includeFanOutStopsAtTheIncludeLimit(@TempDir Path dir) throws Exception {
    // Each level includes the next twice: 2^20 reads of a few bytes.
    for (int i = 0; i < 20; i++) {
      Files.writeString(
          dir.resolve("f" + i + ".conf"),
          "include f" + (i + 1) + ".conf\ninclude f" + (i + 1) + ".conf\n");
    }
    Files.writeString(dir.resolve("f20.conf"), "global_defs {\n}\n");
    ConfigException e =
        catchThrowableOfType(
            ConfigException.class, () -> KeepalivedConfig.parse(dir.resolve("f0.conf"), OPTIONS));
    assertThat(e.errors()).hasSize(1);
    assertThat(e.getMessage())
        .startsWith(
            dir.resolve("f0.conf")
                + ":1: include f1.conf goes past the limit of 50 included files");
  }

  @Test
  void aFileLargerThanTheBudgetIsNotRead(@TempDir Path dir) throws Exception {
    Path big = dir.resolve("big.conf");
    Files.writeString(big, "# padding\n".repeat(10_000));
    ConfigException e =
        catchThrowableOfType(ConfigException.class, () -> KeepalivedConfig.parse(big, OPTIONS));
    assertThat(e.getMessage())
        .isEqualTo(
            big + ": cannot read file: it is larger than the limit of 64 KiB read from files");
  }

  @Test
  void devZeroIsReadOnlyUpToTheBudget() {
    ConfigException e =
        catchThrowableOfType(
            ConfigException.class, () -> KeepalivedConfig.parse(Path.of("/dev/zero"), OPTIONS));
    assertThat(e.getMessage())
        .isEqualTo(
            "/dev/zero: cannot read file: it is larger than the limit of 64 KiB read from files");
  }

  @Test
  void plainTextPastTheWordLimitNamesTheLine() {
    // 3 words on lines 1 (with its brace), 2 on each next: line 2500 holds word 5,001.
    String vs = "virtual_server_group G {\n" + "  10.0.0.1 80\n".repeat(3000) + "}\n";
    ConfigException e = refused(vs);
    assertThat(e.errors()).hasSize(1);
    assertThat(e.getMessage())
        .startsWith("bomb.conf:2500: the configuration goes past the limit of 5,000 words");
  }

  @Test
  void withinTheLimitsTheSameFileLoads() {
    String ok = "~SEQ(a,1,20) virtual_server 10.0.0.$a 80 { real_server 127.0.0.1 8080 { } }\n";
    assertThat(
            KeepalivedConfig.parse("ok.conf", ok, Path.of("."), OPTIONS).config().virtualServers())
        .hasSize(20);
  }

  @Test
  void warningsAreCappedWithACount() {
    String text = "global_defs {\n" + "  process_monitor_rcv_bufs 1024\n".repeat(150) + "}\n";
    List<Diagnostic> w = KeepalivedConfig.parse("w.conf", text, Path.of("."), OPTIONS).warnings();
    assertThat(w).hasSize(Diagnostics.SHOWN + 1);
    assertThat(w.get(Diagnostics.SHOWN).format())
        .isEqualTo("w.conf: warning: and 50 more warnings (only the first 100 are shown)");
  }

  @Test
  void errorsAreCappedWithACount() {
    String text = "virtual_server 10.0.0.1 80 {\n" + "  lb_algo nope\n".repeat(130) + "}\n";
    ConfigException e = refused(text);
    assertThat(e.errors()).hasSize(Diagnostics.SHOWN + 1);
    assertThat(e.getMessage().lines().reduce((a, b) -> b).orElseThrow())
        .isEqualTo("bomb.conf: and 30 more errors (only the first 100 are shown)");
  }
}
