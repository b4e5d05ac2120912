package io.fairway.daemon.announce;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairway.config.model.Announcement;
import io.fairway.config.model.base.Location;
import io.fairway.testkit.ExternalPrograms;
import io.fairway.testkit.ThreadNetns;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code fairway run} is told when announcing cannot start: one line naming the file and the
 * keyword ({@code announce_table}, {@code lvs_sloppy_tcp}), which it prints as it is and exits 1
 * with; and the warning for {@code lvs_sloppy_tcp} on a plane without IPVS.
 */
class AnnounceLifecycleTest {
  static final String FILE = "/etc/keepalived/keepalived.conf";
  static final InetAddress A = AnnouncerTest.A;

  @TempDir Path dir;

  static AnnounceSettings settings(boolean sloppy) {
    return new AnnounceSettings(
        new Announcement(
            OptionalInt.of(100), Duration.ofSeconds(2), sloppy, Location.NONE, Location.NONE),
        Map.of("web", A));
  }

  static Announcing announcing(Routes.Opener opener) {
    return new Announcing(opener, List::of, change -> {});
  }

  /** Routes in memory that open and list, but refuse changes as the kernel does without caps. */
  static final class ReadOnlyRoutes implements Routes {
    boolean closed;

    @Override
    public Set<InetAddress> list() {
      return Set.of();
    }

    @Override
    public void add(InetAddress a) throws IOException {
      checkWritable();
    }

    @Override
    public void remove(InetAddress a) throws IOException {
      checkWritable();
    }

    @Override
    public void checkWritable() throws IOException {
      throw new IOException(
          "cannot write routing table 100: operation not permitted (fairway run needs"
              + " CAP_NET_ADMIN)");
    }

    @Override
    public void close() {
      closed = true;
    }
  }

  @Test
  void aTableThatRefusesChangesIsOneLineNamingTheFileAndAnnounceTable() {
    ReadOnlyRoutes routes = new ReadOnlyRoutes();
    Announcing a = announcing(t -> routes);
    AnnounceLifecycle life = new AnnounceLifecycle(a, null, FILE);
    assertThatThrownBy(() -> life.start(settings(false)))
        .isInstanceOf(IOException.class)
        .hasMessage(
            FILE
                + ": announce_table 100 (global_defs): cannot write routing table 100: operation"
                + " not permitted (fairway run needs CAP_NET_ADMIN)");
    assertThat(routes.closed).as("the refused table is closed").isTrue();
    assertThat(a.table()).as("nothing configured").isEqualTo(-1);
  }

  @Test
  void aTableThatCannotBeOpenedIsOneLineWhateverTheCauseSays() {
    Announcing a =
        announcing(
            t -> {
              throw new IOException("netlink socket:\n  protocol not supported");
            });
    assertThatThrownBy(() -> new AnnounceLifecycle(a, null, FILE).start(settings(false)))
        .hasMessage(
            FILE + ": announce_table 100 (global_defs): netlink socket: protocol not supported");
  }

  @Test
  void theErrorNamesTheLineOfTheKeywordWhenTheModelHasIt() {
    Announcing a =
        announcing(
            t -> {
              throw new IOException("operation not permitted");
            });
    AnnounceSettings at =
        new AnnounceSettings(
            new Announcement(
                OptionalInt.of(100),
                Duration.ofSeconds(2),
                false,
                new Location("/etc/fairway/bgp.conf", 7),
                Location.NONE),
            Map.of("web", A));
    assertThatThrownBy(() -> new AnnounceLifecycle(a, null, FILE).start(at))
        .hasMessage(
            "/etc/fairway/bgp.conf:7: announce_table 100 (global_defs): operation not permitted");
  }

  @Test
  void lvsSloppyTcpWithoutIpVsIsOneLineNamingTheKeywordAndTheRoutesGo() {
    AnnouncerTest.MemoryRoutes routes = new AnnouncerTest.MemoryRoutes();
    Announcing a = announcing(t -> routes);
    Path absent = dir.resolve("vs/sloppy_tcp");
    AnnounceLifecycle life = new AnnounceLifecycle(a, new SloppyTcp(absent), FILE);
    assertThatThrownBy(() -> life.start(settings(true)))
        .hasMessage(
            FILE
                + ": lvs_sloppy_tcp (global_defs): cannot read "
                + absent
                + ": no such file (is the ip_vs module loaded?)");
    assertThat(a.table()).as("announcing stopped with the start").isEqualTo(-1);
  }

  @Test
  void lvsSloppyTcpIsSetAndPutBackAsFound() throws Exception {
    Path sysctl = Files.writeString(dir.resolve("sloppy_tcp"), "0\n");
    AnnounceLifecycle life =
        new AnnounceLifecycle(
            announcing(t -> new AnnouncerTest.MemoryRoutes()), new SloppyTcp(sysctl), FILE);
    assertThat(life.start(settings(true))).isEmpty();
    assertThat(Files.readString(sysctl)).isEqualTo("1\n");
    life.close();
    assertThat(Files.readString(sysctl)).isEqualTo("0\n");
  }

  @Test
  void lvsSloppyTcpOnAPlaneWithoutIpVsIsAWarningNamingIt() throws Exception {
    AnnounceLifecycle life =
        new AnnounceLifecycle(announcing(t -> new AnnouncerTest.MemoryRoutes()), null, FILE);
    assertThat(life.start(settings(true)))
        .containsExactly(
            FILE
                + ": lvs_sloppy_tcp (global_defs) is ignored: it sets IPVS's sloppy_tcp sysctl,"
                + " and this plane does not use IPVS");
    assertThat(life.reload(settings(false))).isEmpty();
    life.close();
    AnnounceLifecycle plain =
        new AnnounceLifecycle(announcing(t -> new AnnouncerTest.MemoryRoutes()), null, FILE);
    assertThat(plain.start(settings(false))).isEmpty();
    plain.close();
  }

  /**
   * The kernel's own refusal, in a namespace of the test's: a thread without CAP_NET_ADMIN opens
   * and lists table 100 (no privilege needed) but may not change it, and the start says so; the
   * same start with the capability succeeds.
   */
  @Test
  void theKernelRefusesTheTableToAThreadWithoutCapNetAdmin() throws Exception {
    String ip =
        ExternalPrograms.require("ip", "/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip").toString();
    ExternalPrograms.requireThat(
        "root".equals(System.getProperty("user.name")), () -> "network namespaces need root");
    String ns = "fwl-" + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x1000, 0xffff));
    sh(ip, "netns", "add", ns);
    try {
      sh(ip, "-n", ns, "link", "set", "lo", "up");
      AnnounceLifecycle allowed =
          new AnnounceLifecycle(announcing(Routes.Opener.KERNEL), null, FILE);
      assertThat(inNetns(ns, false, () -> allowed.start(settings(false)))).isEmpty();
      allowed.close();
      AnnounceLifecycle refused =
          new AnnounceLifecycle(announcing(Routes.Opener.KERNEL), null, FILE);
      assertThatThrownBy(() -> inNetns(ns, true, () -> refused.start(settings(false))))
          .hasMessage(
              FILE
                  + ": announce_table 100 (global_defs): cannot write routing table 100:"
                  + " operation not permitted (fairway run needs CAP_NET_ADMIN)");
      refused.close();
    } finally {
      sh(ip, "netns", "del", ns);
    }
  }

  static String sh(String... cmd) throws Exception {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IOException(String.join(" ", cmd) + ": " + out);
    }
    return out;
  }

  /**
   * Runs {@code task} on a thread of its own in namespace {@code ns}, without CAP_NET_ADMIN in its
   * effective set if {@code dropNetAdmin} (capabilities and namespaces are per thread, and the
   * thread ends with the task, so nothing else in this JVM loses either).
   */
  static <T> T inNetns(String ns, boolean dropNetAdmin, Callable<T> task) throws Exception {
    CompletableFuture<T> result = new CompletableFuture<>();
    Thread t =
        new Thread(
            () -> {
              try {
                ThreadNetns.enter(ns);
                if (dropNetAdmin) {
                  ThreadNetns.dropNetAdmin();
                }
                result.complete(task.call());
              } catch (Throwable e) {
                result.completeExceptionally(e);
              }
            },
            "announce-lifecycle-netns");
    t.start();
    try {
      return result.get(30, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      if (e.getCause() instanceof Exception x) {
        throw x;
      }
      throw e;
    }
  }
}
