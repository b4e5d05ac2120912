package io.fairway.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fairway.daemon.admin.AdminToken;
import io.fairway.testkit.RecordingTable;
import java.io.File;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.logging.LogEntry;

/**
 * The status page in a real browser (Debian's headless Chromium through chromedriver), over a
 * daemon with real TCP checks against real loopback listeners: every server is listed, a stopped
 * backend's row turns down within 3 s without a reload, drain through the page changes the row and
 * the table, and the console shows no error. Leaves a screenshot in target/.
 */
class StatusPageBrowserTest {
  @TempDir Path dir;
  final RecordingTable table = new RecordingTable();

  // Started by each test that needs it, before any use; closed after each when started.
  @SuppressWarnings("NullAway.Init")
  AdminFixture admin;

  @SuppressWarnings("NullAway.Init")
  HeadlessChromium chrome;

  @SuppressWarnings("NullAway.Init")
  ServerSocket b1;

  @SuppressWarnings("NullAway.Init")
  ServerSocket b2;

  @AfterEach
  void stop() throws Exception {
    if (chrome != null) {
      chrome.close();
    }
    if (admin != null) {
      admin.close();
    }
    for (ServerSocket s : new ServerSocket[] {b1, b2}) {
      if (s != null) {
        s.close();
      }
    }
  }

  @Test
  void thePageFollowsVerdictsAndDrainsThroughItsButtons() throws Exception {
    HeadlessChromium.require();
    b1 = AdminFixture.tcpBackend();
    b2 = AdminFixture.tcpBackend();
    admin =
        AdminFixture.in(dir, table)
            .start(
                AdminFixture.virtualServer(
                    18080,
                    "NAT",
                    AdminFixture.tcpCheckedServer(b1.getLocalPort())
                        + AdminFixture.tcpCheckedServer(b2.getLocalPort())));
    Daemon daemon = admin.daemon;
    AdminToken token = admin.token;
    String base = admin.base();
    String r1 = "127.0.0.1:" + b1.getLocalPort();
    String r2 = "127.0.0.1:" + b2.getLocalPort();

    // Readable without JavaScript: the rows are in the HTML itself.
    String html =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(base + "/")).build(),
                HttpResponse.BodyHandlers.ofString())
            .body();
    assertThat(html)
        .contains("data-rs=\"" + r1 + "\"")
        .contains("data-rs=\"" + r2 + "\"")
        .doesNotContain("http://", "https://".substring(0, 0) + "//cdn");

    chrome = new HeadlessChromium(dir);
    ChromeDriver browser = chrome.driver;
    browser.get(base + "/");

    var wait = chrome.waiting(10);
    wait.until(d -> d.findElements(By.cssSelector("tr[data-rs]")).size() == 2);
    wait.until(d -> chrome.rowClass(r1).equals("st-up") && chrome.rowClass(r2).equals("st-up"));
    assertThat(browser.findElements(By.cssSelector("button.act")))
        .as("no token, no buttons")
        .isEmpty();

    // A backend stops: its row turns down within 3 s, the page is not reloaded.
    browser.executeScript("window.notReloaded = true;");
    b1.close();
    try {
      chrome.waiting(3).until(d -> chrome.rowClass(r1).equals("st-down"));
    } catch (RuntimeException e) {
      System.err.println("status at the timeout: " + daemon.status());
      chrome.console().forEach(l -> System.err.println("console: " + l));
      System.err.println("page: " + browser.getPageSource());
      throw e;
    }
    assertThat(browser.executeScript("return window.notReloaded === true;")).isEqualTo(true);
    chrome
        .waiting(3)
        .until(d -> chrome.row(r1).findElement(By.className("state")).getText().equals("down"));

    // A token entered in the page: buttons; drain changes the row and the table.
    browser.findElement(By.id("token")).sendKeys(Files.readString(token.file()).strip());
    browser.findElement(By.cssSelector("#auth button")).click();
    wait.until(
        d -> !chrome.row(r2).findElements(By.cssSelector("button[data-action=drain]")).isEmpty());
    chrome
        .waiting(10)
        .until(
            d -> {
              chrome.row(r2).findElement(By.cssSelector("button[data-action=drain]")).click();
              return true;
            });
    wait.until(d -> chrome.rowClass(r2).equals("st-drain"));
    await()
        .atMost(Duration.ofSeconds(3))
        .until(() -> table.lines().contains("TCP 127.0.0.1:18080 -> " + r2 + " w=0"));
    assertThat(browser.executeScript("return sessionStorage.getItem('fairway-token') !== null;"))
        .isEqualTo(true);
    assertThat(browser.manage().getCookies()).isEmpty();

    File shot = browser.getScreenshotAs(OutputType.FILE);
    Files.copy(
        shot.toPath(), Path.of("target", "status-page.png"), StandardCopyOption.REPLACE_EXISTING);

    List<LogEntry> console = chrome.console();
    assertThat(console)
        .filteredOn(e -> e.getLevel().intValue() >= Level.WARNING.intValue())
        .isEmpty();
  }
}
