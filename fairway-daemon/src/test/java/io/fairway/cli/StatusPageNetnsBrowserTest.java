package io.fairway.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fairway.cli.VrrpRouterProcess.Kind;
import io.fairway.daemon.HeadlessChromium;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;

/**
 * The status page's VRRP and announce lines, in headless Chromium, of a {@code fairway run
 * --userspace} that holds a VRRP instance and announces a virtual server from a network namespace
 * of its own (VRRP needs an interface and announcing a routing table, neither of which a test may
 * take from the host). The browser stays in the test's namespace and reaches the admin listener
 * through {@link NetnsForward}. After {@code fairway announce off} the line says so; after the real
 * server refused a connect, its active / limit cell shows the learned limit.
 */
@Tag("netns")
class StatusPageNetnsBrowserTest {
  static final String VS = "192.0.2.10";

  @TempDir Path dir;

  // Started by each test that needs it, before any use; closed after each when started.
  @SuppressWarnings("NullAway.Init")
  Netns net;

  @SuppressWarnings("NullAway.Init")
  VrrpRouterProcess router;

  @SuppressWarnings("NullAway.Init")
  NetnsForward forward;

  @SuppressWarnings("NullAway.Init")
  HeadlessChromium browser;

  @BeforeAll
  static void available() {
    Netns.assumeAvailable();
    HeadlessChromium.require();
  }

  @AfterEach
  void cleanUp() throws Exception {
    if (browser != null) {
      browser.close();
    }
    if (forward != null) {
      forward.close();
    }
    if (router != null) {
      router.close();
      System.out.println("--- " + router.ns + "\n" + router.logText());
    }
    if (net != null) {
      net.close();
    }
  }

  static String config() {
    return "global_defs {\n  router_id test\n  script_user root\n  announce_table 100\n}\n"
        + VrrpInteropTest.instance("VI_1", 51, 150, "MASTER", "", VrrpInteropTest.VIP)
        + "virtual_server "
        + VS
        + " 8080 {\n  lb_algo rr\n  lb_kind HTTP\n  protocol TCP\n  announce\n"
        + "  real_server 127.0.0.1 9 {\n    weight 1\n  }\n}\n";
  }

  /** curl from inside the namespace: what it printed. */
  String curl(String... args) throws java.io.IOException {
    java.util.List<String> cmd =
        new java.util.ArrayList<>(
            java.util.List.of("ip", "netns", "exec", net.a, "curl", "-sS", "-m", "30"));
    cmd.addAll(java.util.List.of(args));
    return Netns.sh(cmd.toArray(String[]::new));
  }

  /** The status code of a GET from inside the namespace. */
  String code(String url) throws java.io.IOException {
    return curl("-o", "/dev/null", "-w", "%{http_code}", url);
  }

  String line(String id) {
    WebElement e = browser.driver.findElement(By.id(id));
    return e.isDisplayed() ? e.getText() : "";
  }

  @Test
  void theVrrpAndAnnounceLinesShowWhatTheNodeHoldsAndAnnounces() throws Exception {
    net = Netns.create();
    Netns.sh("ip", "-n", net.a, "link", "set", "lo", "up");
    Netns.sh("ip", "-n", net.a, "addr", "add", VS + "/32", "dev", "lo");
    Path token = dir.resolve("admin.token");
    Files.writeString(token, "page-netns-token\n");
    Files.setPosixFilePermissions(token, PosixFilePermissions.fromString("rw-------"));
    router =
        VrrpRouterProcess.start(
            Kind.FAIRWAY,
            net.a,
            dir,
            config(),
            "--userspace",
            "--admin",
            "127.0.0.1:9107",
            "--admin-token-file",
            token.toString());
    await()
        .atMost(VrrpInteropTest.START)
        .pollInterval(Duration.ofMillis(200))
        .ignoreExceptions()
        .until(() -> code("http://127.0.0.1:9107/readyz").equals("200"));
    forward = new NetnsForward(net.a, new InetSocketAddress("127.0.0.1", 9107));
    browser = new HeadlessChromium(dir);
    browser.driver.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30));
    browser.driver.get("http://127.0.0.1:" + forward.port() + "/");

    browser
        .waiting(30)
        .until(
            d ->
                line("vrrp").matches("VRRP: VI_1 (?i:master) for \\S+ \\(since .+\\), priority 150")
                    && line("announce").equals("Announce: on, table 100: " + VS + " announced"));

    String off =
        curl(
            "-X",
            "POST",
            "-H",
            "Authorization: Bearer page-netns-token",
            "http://127.0.0.1:9107/api/v1/announce/off");
    assertThat(off).contains("\"enabled\":false");
    browser.driver.navigate().refresh();
    browser
        .waiting(30)
        .until(
            d ->
                line("announce")
                    .equals(
                        "Announce: off (fairway announce off), table 100: " + VS + " withdrawn"));

    // Nothing listens on the real server's port: the refused connect teaches it a limit of one,
    // which the active / limit column marks as learned.
    String refused = code("http://" + VS + ":8080/");
    assertThat(refused).isEqualTo("502");
    browser.driver.navigate().refresh();
    browser
        .waiting(30)
        .until(
            d ->
                browser
                    .driver
                    .findElement(By.cssSelector("tr[data-rs='127.0.0.1:9'] td.active"))
                    .getText()
                    .equals("0 / ~1"));
    assertThat(browser.console()).as("the page's console").isEmpty();
  }
}
