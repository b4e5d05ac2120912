package io.fairway.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code fairway run --userspace} on a port another process holds: exit 1 with that one line. */
class RunPortInUseTest {
  @TempDir Path dir;

  @Test
  void aHeldPortIsExitOneWithAddressAlreadyInUseAndWho() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      Path conf = dir.resolve("keepalived.conf");
      Files.writeString(
          conf, UserspaceRunTest.conf(taken.getLocalPort(), UserspaceRunTest.freePort()));
      StringWriter out = new StringWriter();
      StringWriter err = new StringWriter();
      int code =
          Main.execute(
              new String[] {"run", "--userspace", "-f", conf.toString(), "--admin", "off"},
              new PrintWriter(out, true),
              new PrintWriter(err, true));
      assertThat(code).isEqualTo(1);
      assertThat(err.toString().strip())
          .startsWith("fairway: " + conf + ":1: virtual_server ")
          .contains(
              "TCP 127.0.0.1:"
                  + taken.getLocalPort()
                  + ": cannot listen on 127.0.0.1:"
                  + taken.getLocalPort()
                  + ": address already in use (held by ")
          .contains("(pid " + ProcessHandle.current().pid() + ")")
          .doesNotContain("no such service")
          .doesNotContain("\n");
    }
  }
}
