package io.fairway.daemon.systemd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SystemdNotifierTest {
  @TempDir Path dir;

  @Test
  void sendsToAPathSocket() throws Exception {
    try (NotifySocket s = new NotifySocket(dir.resolve("notify").toString(), m -> {})) {
      SystemdNotifier n = new SystemdNotifier(s.address());
      n.ready("running x");
      n.stopping("bye\nnow");
      await().atMost(Duration.ofSeconds(10)).until(() -> s.messages().size() == 2);
      assertThat(s.messages())
          .containsExactly("READY=1\nSTATUS=running x", "STOPPING=1\nSTATUS=bye now");
    }
  }

  @Test
  void sendsToAnAbstractSocket() throws Exception {
    String name = "@pkg-notify-test-" + ProcessHandle.current().pid();
    try (NotifySocket s = new NotifySocket(name, m -> {})) {
      new SystemdNotifier(name).reloading("reloading x");
      await().atMost(Duration.ofSeconds(10)).until(() -> s.messages().size() == 1);
      assertThat(s.messages().get(0))
          .matches("RELOADING=1\nMONOTONIC_USEC=\\d+\nSTATUS=reloading x");
    }
  }

  @Test
  void withoutNotifySocketNothingIsSent() {
    SystemdNotifier n = new SystemdNotifier(null);
    assertThat(n.enabled()).isFalse();
    n.ready("x"); // must not throw
  }

  @Test
  void aSocketNobodyListensOnIsAWarningNotAFailure() throws IOException {
    assertThatThrownBy(() -> UnixDatagram.send(dir.resolve("nobody").toString(), "READY=1"))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("errno 2"); // ENOENT
    new SystemdNotifier(dir.resolve("nobody").toString()).ready("x"); // logged, not thrown
  }

  @Test
  void anAddressLongerThanSunPathIsRefused() {
    assertThatThrownBy(() -> UnixDatagram.sockaddr("/" + "x".repeat(107)))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("longer than 108");
  }
}
