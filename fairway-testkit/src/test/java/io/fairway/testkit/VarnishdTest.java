package io.fairway.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class VarnishdTest {
  /** Answers every request in vcl_recv, a ping too: header r0 is "got " and the request's k0. */
  static final String ECHO =
      "vcl 4.1;\n"
          + "backend none none;\n\n"
          + "sub vcl_recv {\n"
          + "  set req.http.r0 = \"got \" + req.http.k0;\n"
          + "  return (synth(200));\n"
          + "}\n\n"
          + Varnishd.synthAnswers(1);

  @Test
  void answersWithWhatItsVclWroteTakesAdminCommandsAndStopsOnClose(@TempDir Path dir)
      throws Exception {
    Path bin = Varnishd.require();
    Varnishd stopped;
    try (Varnishd v = Varnishd.start(bin, dir, ECHO, Map.of("x-mode", "ping"))) {
      stopped = v;
      assertThat(v.ask(Map.of("k0", "key")).headers().firstValue("r0")).hasValue("got key");
      assertThat(v.askAsync(Map.of("k0", "other")).join().headers().firstValue("r0"))
          .hasValue("got other");
      Process status = v.varnishadm("status");
      String out = new String(status.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(status.waitFor()).as("varnishadm: %s", out).isZero();
      assertThat(out).contains("running");
    }
    assertThatThrownBy(() -> stopped.ask(Map.of())).isInstanceOf(IOException.class);
  }

  @Test
  void aVclThatDoesNotCompileFailsTheStartWithTheLog(@TempDir Path dir) {
    Path bin = Varnishd.require();
    assertThatThrownBy(() -> Varnishd.start(bin, dir, "vcl 4.1;\nthis is not vcl\n", Map.of()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("varnishd exited; its log:")
        .hasMessageContaining("VCL");
  }
}
