package io.fairway.daemon.announce;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.config.KeepalivedConfig;
import io.fairway.config.ParseOptions;
import io.fairway.config.model.Config;
import java.net.InetAddress;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class AnnouncedServicesTest {
  static Config parse(String text) {
    return KeepalivedConfig.parse("test.conf", text, Path.of("."), ParseOptions.defaults())
        .config();
  }

  static final String SERVICES =
      "virtual_server 192.0.2.10 80 {\n    lb_kind HTTP\n    announce\n"
          + "    real_server 127.0.0.2 80 {\n    }\n}\n"
          + "virtual_server 192.0.2.11 80 {\n    lb_kind HTTP\n"
          + "    real_server 127.0.0.2 80 {\n    }\n}\n";

  @Test
  void onlyTheAnnouncingServicesWithTheirAddresses() throws Exception {
    Config c = parse("global_defs {\n    announce_table 100\n}\n" + SERVICES);
    assertThat(AnnouncedServices.of(c))
        .containsExactly(java.util.Map.entry("192.0.2.10:80", InetAddress.getByName("192.0.2.10")));
  }

  @Test
  void nothingWithoutAnnounce() {
    assertThat(AnnouncedServices.of(parse(SERVICES.replace("    announce\n", "")))).isEmpty();
  }
}
