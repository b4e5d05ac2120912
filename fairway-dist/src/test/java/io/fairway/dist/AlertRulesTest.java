package io.fairway.dist;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.testkit.ExternalPrograms;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The alert rules the package ships: valid for promtool, and each alert has test cases ({@code
 * src/test/promtool/fairway.rules.test.yml}) that make it fire and stay quiet when it should.
 */
class AlertRulesTest {
  static final Path RULES = Path.of("dist/prometheus/fairway.rules.yml");
  static final Path CASES = Path.of("src/test/promtool/fairway.rules.test.yml");

  @Test
  void promtoolChecksTheRules() throws Exception {
    String out = promtool("check", "rules", RULES.toString());
    assertThat(out).contains("SUCCESS");
  }

  @Test
  void promtoolTestsPass() throws Exception {
    String out = promtool("test", "rules", CASES.toString());
    assertThat(out).contains("SUCCESS").doesNotContain("FAILED");
  }

  /** A new alert without a test case would pass promtool's tests unexercised. */
  @Test
  void everyAlertHasTestCasesThatFireIt() throws Exception {
    Set<String> alerts = names(Files.readString(RULES), "- alert: (\\w+)");
    Set<String> tested = new TreeSet<>();
    // A case that expects the alert to fire: its alertname followed by a non-empty exp_alerts.
    Matcher m =
        Pattern.compile("alertname: (\\w+)\\n\\s+exp_alerts:\\n\\s+- exp_labels")
            .matcher(Files.readString(CASES));
    while (m.find()) {
      tested.add(m.group(1));
    }
    assertThat(alerts).hasSizeGreaterThanOrEqualTo(8);
    assertThat(tested).containsAll(alerts);
  }

  private static Set<String> names(String text, String regex) {
    Set<String> out = new TreeSet<>();
    Matcher m = Pattern.compile(regex).matcher(text);
    while (m.find()) {
      out.add(m.group(1));
    }
    return out;
  }

  private static String promtool(String... args) throws Exception {
    Path promtool =
        ExternalPrograms.require("promtool (Debian package prometheus)", "/usr/bin/promtool");
    List<String> cmd = new java.util.ArrayList<>(List.of(promtool.toString()));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    return out;
  }
}
