package io.fairway.check.checker;

import com.sun.jna.Library;
import com.sun.jna.Native;
import io.fairway.check.CheckConfigException;
import io.fairway.check.spec.CheckSource;
import io.fairway.check.spec.CheckTiming;
import io.fairway.check.spec.PingCheckSpec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** PING_CHECK over ICMPv6 and from a source, on loopback and in a network namespace of our own. */
class PingCheckerTest {
    static final CheckerHarness harness = new CheckerHarness();
    static final CheckTiming T = CheckTiming.of(Duration.ofSeconds(1), Duration.ofMillis(1500));
    static final CheckTiming FAST = CheckTiming.of(Duration.ofSeconds(1), Duration.ofMillis(300));

    @AfterAll
    static void close() {
        harness.close();
    }

    static CheckResult ping(CheckerHarness h, PingCheckSpec spec) throws Exception {
        try {
            return h.once(spec);
        } catch (CheckConfigException e) {
            assumeTrue(!e.getMessage().contains("ping_group_range"), "ICMP ping sockets not allowed here: "
                    + e.getMessage());
            throw e;
        }
    }

    @Test
    void pingIpv6Loopback() throws Exception {
        var spec = new PingCheckSpec(InetAddress.getByName("::1"), T);
        assertThat(spec.describe()).isEqualTo("PING_CHECK ::1");
        CheckResult r = ping(harness, spec);
        assertThat(r.success()).as(r.observation()).isTrue();
        assertThat(r.observation()).startsWith("echo reply in");
    }

    @Test
    void pingFromABoundSourceAndFromAnAddressWeDoNotHave() throws Exception {
        var fromLo2 = new PingCheckSpec(InetAddress.getByName("127.0.0.1"),
                new CheckSource(InetAddress.getByName("127.0.0.2"), 0, "lo", 0), T);
        CheckResult ok = ping(harness, fromLo2);
        assertThat(ok.success()).as(ok.observation()).isTrue();
        // 192.0.2.1 (TEST-NET-1) is not ours: the bind fails, and every attempt says so; nothing is sent.
        var foreign = new PingCheckSpec(InetAddress.getByName("127.0.0.1"),
                new CheckSource(InetAddress.getByName("192.0.2.1"), 0, null, 0), T);
        Checker c = harness.create(foreign, 1);
        for (int i = 0; i < 2; i++) {
            CheckResult r = CheckerHarness.once(c);
            assertThat(r.success()).isFalse();
            assertThat(r.observation()).isEqualTo("cannot bind to 192.0.2.1:0: Cannot assign requested address");
        }
    }

    @Test
    void bindtoOfTheOtherFamilyIsALoadError() throws Exception {
        var spec = new PingCheckSpec(InetAddress.getByName("::1"),
                new CheckSource(InetAddress.getByName("127.0.0.2"), 0, null, 0), T);
        assertThatThrownBy(() -> harness.create(spec, 1)).isInstanceOf(CheckConfigException.class)
                .hasMessage("vs rs PING_CHECK ::1 from 127.0.0.2: bindto 127.0.0.2 is not of the target's"
                        + " address family");
    }

    interface Ns extends Library {
        Ns INSTANCE = Native.load("c", Ns.class);
        int CLONE_NEWNET = 0x40000000;

        int open(String path, int flags);

        int setns(int fd, int nstype);

        int close(int fd);
    }

    /**
     * An IPv6 address that does not answer, without sending anything off this host: in a namespace of our own
     * whose loopback holds fd00:fa1::1/64, fd00:fa1::2 routes to lo and nobody has it.
     */
    @Test
    void pingIpv6AddressThatDoesNotAnswerIsDown() throws Exception {
        Programs.requireRoot("a network namespace");
        Path ip = Programs.require("ip");
        String ns = "fwchk-" + ProcessHandle.current().pid();
        run(ip.toString(), "netns", "add", ns);
        try {
            run(ip.toString(), "netns", "exec", ns, ip.toString(), "link", "set", "lo", "up");
            run(ip.toString(), "netns", "exec", ns, ip.toString(), "-6", "addr", "add", "fd00:fa1::1/64", "dev",
                    "lo", "nodad");
            CompletableFuture<CheckResult[]> results = new CompletableFuture<>();
            Thread t = new Thread(() -> {
                int fd = Ns.INSTANCE.open("/run/netns/" + ns, 0);
                if (fd < 0 || Ns.INSTANCE.setns(fd, Ns.CLONE_NEWNET) != 0) {
                    results.completeExceptionally(new IllegalStateException("cannot enter netns " + ns));
                    return;
                }
                Ns.INSTANCE.close(fd);
                // Sockets belong to the namespace of the thread that creates them: a harness of our own, so
                // its ping sockets are made here.
                try (CheckerHarness inside = new CheckerHarness()) {
                    results.complete(new CheckResult[]{
                            inside.once(new PingCheckSpec(InetAddress.getByName("fd00:fa1::1"), FAST)),
                            inside.once(new PingCheckSpec(InetAddress.getByName("fd00:fa1::2"), FAST))});
                } catch (Exception e) {
                    results.completeExceptionally(e);
                }
            });
            t.start();
            CheckResult[] r = results.get(20, TimeUnit.SECONDS);
            assertThat(r[0].success()).as(r[0].observation()).isTrue();
            assertThat(r[1].success()).isFalse();
            assertThat(r[1].observation()).isEqualTo("no echo reply within 300 ms");
        } finally {
            run(ip.toString(), "netns", "del", ns);
        }
    }

    static void run(String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(String.join(" ", cmd) + ": " + out).isZero();
    }
}
