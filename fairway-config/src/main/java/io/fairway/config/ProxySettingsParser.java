package io.fairway.config;

import io.fairway.config.model.ProxySettings;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Parses the {@code proxy_timeouts { }} block of a virtual server (a Fairway extension): each
 * keyword a time in seconds (decimals allowed), {@code request_body_min_rate} a byte rate.
 */
final class ProxySettingsParser {
  static final Set<String> TIMEOUTS =
      Set.of(
          "request_head",
          "request_body",
          "request_body_min_rate",
          "connect",
          "first_byte",
          "keepalive",
          "idle",
          "tunnel");

  private ProxySettingsParser() {}

  static ProxySettings.Timeouts timeouts(Node block, Values v) {
    Map<String, Duration> t = new HashMap<>();
    OptionalLong rate = OptionalLong.empty();
    for (Node c : block.block()) {
      String k = c.keyword();
      if (!TIMEOUTS.contains(k)) {
        v.unknown(c, TIMEOUTS, "proxy_timeouts");
        continue;
      }
      if (!v.args(c, 1, 1)) {
        continue;
      }
      if (k.equals("request_body_min_rate")) {
        Long r = v.number(c, 1, 0, Integer.MAX_VALUE, "bytes per second");
        if (r != null) {
          rate = OptionalLong.of(r);
        }
        continue;
      }
      Duration d = v.timer(c, 1, false);
      if (d != null) {
        t.put(k, d);
      }
    }
    return new ProxySettings.Timeouts(
        Optional.ofNullable(t.get("request_head")),
        Optional.ofNullable(t.get("request_body")),
        rate,
        Optional.ofNullable(t.get("connect")),
        Optional.ofNullable(t.get("first_byte")),
        Optional.ofNullable(t.get("keepalive")),
        Optional.ofNullable(t.get("idle")),
        Optional.ofNullable(t.get("tunnel")));
  }
}
