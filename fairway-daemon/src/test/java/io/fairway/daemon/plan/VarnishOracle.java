package io.fairway.daemon.plan;

import io.fairway.testkit.Varnishd;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What the plan oracles share on top of the testkit's {@link Varnishd}: the VCL parts every one of
 * their VCLs has (the probe, the ping and health answers), Fairway's checker as robust as that
 * probe, and reading the probes' verdicts, so that they start and read varnishd the same way.
 */
final class VarnishOracle {
  /** The request start-up waits for: {@link #recvPingAndHealth} answers it 200. */
  static final Map<String, String> PING = Map.of("x-mode", "ping");

  /**
   * The VCL probe the oracles give their checked backends: {@code /health} every 0.2 s. A 503 (a
   * sick backend) never passes; a healthy backend turns sick only after three probes in a row
   * failed, each with 2 s to answer, so a loaded machine (the backends are this JVM's threads) does
   * not flip it in the middle of a comparison: at load 25, single probes and checks of 1 s did, and
   * the two sides disagreed for a moment on a hashing director's healthy set.
   */
  static final String PROBE =
      "probe health { .url = \"/health\"; .interval = 0.2s; .timeout = 2s; .window = 3;"
          + " .threshold = 1; .initial = 0; }\n";

  /**
   * Fairway's checker for the same backends, as robust as {@link #PROBE}: a 503 is down after the
   * first check and its two retries (about 2 s), a healthy server only after three attempts in a
   * row got no answer within 3 s.
   */
  static final String HTTP_GET =
      "    HTTP_GET {\n      url {\n        path /health\n        status_code 200\n"
          + "      }\n      connect_timeout 3\n      retry 2\n      delay_before_retry 1\n    }\n";

  private VarnishOracle() {}

  /**
   * VCL for the top of {@code vcl_recv}: {@code x-mode: ping} answers 200 ({@link #PING}), {@code
   * x-mode: health} answers with header {@code r0}, {@code std.healthy()} of each of {@code probed}
   * followed by a comma (read by {@link #health}).
   */
  static String recvPingAndHealth(List<String> probed) {
    StringBuilder v = new StringBuilder();
    v.append("  if (req.http.x-mode == \"ping\") {\n    return (synth(200));\n  }\n");
    v.append("  if (req.http.x-mode == \"health\") {\n    set req.http.r0 = \"\"");
    for (String b : probed) {
      v.append(" + std.healthy(").append(b).append(") + \",\"");
    }
    v.append(";\n    return (synth(200));\n  }\n");
    return v.toString();
  }

  /**
   * What varnishd's probes say of each backend {@link #recvPingAndHealth} listed, in that order
   * (true: healthy).
   */
  static List<Boolean> health(Varnishd varnishd) throws IOException, InterruptedException {
    String r0 = varnishd.ask(Map.of("x-mode", "health")).headers().firstValue("r0").orElse("");
    List<Boolean> out = new ArrayList<>();
    for (String h : r0.split(",")) {
      if (!h.isEmpty()) {
        out.add(Boolean.parseBoolean(h));
      }
    }
    return out;
  }
}
