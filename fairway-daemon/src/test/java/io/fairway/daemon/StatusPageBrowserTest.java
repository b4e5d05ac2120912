package io.fairway.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fairway.check.config.CheckSpecs;
import io.fairway.check.engine.CheckEngine;
import io.fairway.daemon.admin.AdminApi;
import io.fairway.daemon.admin.AdminHttpServer;
import io.fairway.daemon.admin.AdminToken;
import io.fairway.daemon.admin.DaemonMetrics;
import io.fairway.daemon.admin.ServicesView;
import java.io.File;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
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
  final MapTable table = new MapTable();
  Daemon daemon;
  AdminApi api;
  AdminHttpServer server;
  HeadlessChromium chrome;
  ServerSocket b1;
  ServerSocket b2;

  @AfterEach
  void stop() throws Exception {
    if (chrome != null) {
      chrome.close();
    }
    if (server != null) {
      server.close();
    }
    if (api != null) {
      api.close();
    }
    if (daemon != null) {
      daemon.stop();
    }
    for (ServerSocket s : new ServerSocket[] {b1, b2}) {
      if (s != null) {
        s.close();
      }
    }
  }

  /** A listener that accepts and closes: enough for a TCP_CHECK. */
  static ServerSocket listener() throws Exception {
    ServerSocket s = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread t =
        new Thread(
            () -> {
              while (!s.isClosed()) {
                try (Socket c = s.accept()) {
                  c.getInputStream();
                } catch (Exception e) {
                  return;
                }
              }
            },
            "backend-" + s.getLocalPort());
    t.setDaemon(true);
    t.start();
    return s;
  }

  static String rs(int port) {
    return """
            real_server 127.0.0.1 %d {
                weight 1
                TCP_CHECK {
                    connect_timeout 1
                    retry 0
                }
            }
        """
        .formatted(port);
  }

  @Test
  void thePageFollowsVerdictsAndDrainsThroughItsButtons() throws Exception {
    HeadlessChromium.require();
    b1 = listener();
    b2 = listener();
    Path file = dir.resolve("keepalived.conf");
    Files.writeString(
        file,
        """
        virtual_server 127.0.0.1 18080 {
            delay_loop 1
            lb_algo rr
            lb_kind NAT
            protocol TCP
        %s%s}
        """
            .formatted(rs(b1.getLocalPort()), rs(b2.getLocalPort())));
    daemon =
        new Daemon(
            file,
            new KeepalivedLoader(false, CheckSpecs::from),
            table,
            CheckEngine::builder,
            Duration.ZERO,
            Clock.systemUTC());
    daemon.start();
    AdminToken token = AdminToken.generate(dir.resolve("admin.token"));
    api =
        new AdminApi(
            daemon,
            () -> {},
            new DaemonMetrics(() -> ServicesView.of(daemon), daemon.events())::scrape);
    server =
        AdminHttpServer.start(
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
            () -> token,
            false,
            Duration.ofSeconds(10),
            api,
            daemon.events());
    String base = "http://127.0.0.1:" + server.address().getPort();
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
    wait.until(
        d ->
            chrome.row(r1).getAttribute("class").equals("st-up")
                && chrome.row(r2).getAttribute("class").equals("st-up"));
    assertThat(browser.findElements(By.cssSelector("button.act")))
        .as("no token, no buttons")
        .isEmpty();

    // A backend stops: its row turns down within 3 s, the page is not reloaded.
    browser.executeScript("window.notReloaded = true;");
    b1.close();
    try {
      chrome.waiting(3).until(d -> chrome.row(r1).getAttribute("class").equals("st-down"));
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
    wait.until(d -> chrome.row(r2).getAttribute("class").equals("st-drain"));
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
