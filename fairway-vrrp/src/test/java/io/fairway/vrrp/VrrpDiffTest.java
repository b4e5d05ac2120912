package io.fairway.vrrp;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.config.KeepalivedConfig;
import io.fairway.config.ParseOptions;
import io.fairway.config.model.vrrp.VrrpConfig;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class VrrpDiffTest {
  static String instance(String name, String iface, int vrid, int prio, String extra) {
    return "vrrp_instance "
        + name
        + " {\n  interface "
        + iface
        + "\n  virtual_router_id "
        + vrid
        + "\n  priority "
        + prio
        + "\n"
        + extra
        + "  virtual_ipaddress {\n    10.0.0."
        + vrid
        + "/24\n  }\n}\n";
  }

  static VrrpConfig parse(String text) {
    return KeepalivedConfig.parse("keepalived.conf", text, Path.of("."), ParseOptions.defaults())
        .config()
        .vrrp();
  }

  @Test
  void movedBlocksAndCommentsAreNoChange() {
    VrrpConfig a =
        parse(instance("VI_1", "eth0", 1, 100, "") + instance("VI_2", "eth0", 2, 100, ""));
    VrrpConfig b =
        parse(
            "# moved\n\n"
                + instance("VI_2", "eth0", 2, 100, "")
                + instance("VI_1", "eth0", 1, 100, ""));
    VrrpDiff d = VrrpDiff.of(a, b);
    assertThat(d.isEmpty()).isTrue();
    assertThat(d.unchanged()).containsExactly("VI_2", "VI_1");
  }

  @Test
  void settingsChangeTheRunningInstanceIdentityRestartsIt() {
    VrrpConfig a =
        parse(
            instance("VI_1", "eth0", 1, 100, "")
                + instance("VI_2", "eth0", 2, 100, "")
                + instance("VI_3", "eth0", 3, 100, ""));
    VrrpConfig b =
        parse(
            instance("VI_1", "eth0", 1, 120, "  nopreempt\n")
                + instance("VI_2", "eth1", 2, 100, "")
                + instance("VI_4", "eth0", 4, 100, ""));
    VrrpDiff d = VrrpDiff.of(a, b);
    assertThat(d.changed()).isEqualTo(Map.of("VI_1", List.of("priority", "preempt")));
    assertThat(d.removed()).containsExactly("VI_2", "VI_3");
    assertThat(d.added()).containsExactly("VI_2", "VI_4");
    assertThat(d.unchanged()).isEmpty();
    assertThat(d.summary())
        .isEqualTo(
            "added VI_4; removed VI_3; restarted VI_2 (interface,"
                + " virtual_router_id, family, version or unicast_src_ip changed); changed VI_1"
                + " (priority, preempt); 0 unchanged");
  }

  @Test
  void aChangedRouterIdIsAnotherInstance() {
    VrrpDiff d =
        VrrpDiff.of(
            parse(instance("VI_1", "eth0", 1, 100, "")),
            parse(instance("VI_1", "eth0", 9, 100, "")));
    assertThat(d.removed()).containsExactly("VI_1");
    assertThat(d.added()).containsExactly("VI_1");
  }
}
