package io.fairway.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fairway.daemon.admin.AdminSessions;
import io.fairway.daemon.admin.AdminToken;
import io.fairway.testkit.RecordingTable;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ProxySelector;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.Cookie;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.logging.LogEntry;

/**
 * The status page on a listener whose reads need the token (the code path of a non-loopback {@code
 * --admin}: {@code tokenForReads}, here on 127.0.0.2), in headless Chromium: without a credential
 * it shows the form and nothing of the state; the token entered buys a read session (an HttpOnly,
 * SameSite=Strict cookie), after which the rows are drawn and follow the event stream live, across
 * the session's renewals and the stream's end with its first session; the buttons still go with the
 * header. Over plain HTTP: the cookie reads but never changes anything, a stream opened on a
 * session ends with it, and no session is minted without the token.
 */
class StatusPageSessionBrowserTest {
  static final Duration LIFETIME = Duration.ofSeconds(4);

  @TempDir Path dir;
  final RecordingTable table = new RecordingTable();
  final HttpClient http =
      HttpClient.newBuilder()
          .proxy(ProxySelector.of(null))
          .connectTimeout(Duration.ofSeconds(2))
          .build();
  final AdminSessions sessions = new AdminSessions(LIFETIME, System::nanoTime);

  // Started by each test that needs it, before any use; closed after each when started.
  @SuppressWarnings("NullAway.Init")
  AdminFixture admin;

  @SuppressWarnings("NullAway.Init")
  HeadlessChromium chrome;

  @SuppressWarnings("NullAway.Init")
  ServerSocket b1;

  @SuppressWarnings("NullAway.Init")
  ServerSocket b2;

  // Set by each test from the fixture it starts, before any use.
  @SuppressWarnings("NullAway.Init")
  String base;

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

  HttpResponse<String> send(HttpRequest.Builder b) throws Exception {
    return http.send(
        b.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
  }

  HttpRequest.Builder req(String path) {
    return HttpRequest.newBuilder(URI.create(base + path));
  }

  @Test
  void theTokenBuysAReadSessionAndThePageFollowsTheStreamAcrossRenewals() throws Exception {
    HeadlessChromium.require();
    b1 = AdminFixture.tcpBackend();
    b2 = AdminFixture.tcpBackend();
    admin =
        AdminFixture.in(dir, table)
            .readsNeedToken(InetAddress.getByName("127.0.0.2"), sessions)
            .start(
                AdminFixture.virtualServer(
                    18081,
                    "NAT",
                    AdminFixture.tcpCheckedServer(b1.getLocalPort())
                        + AdminFixture.tcpCheckedServer(b2.getLocalPort())));
    String secret = AdminToken.readToken(admin.token.file());
    int port = admin.server.address().getPort();
    base = admin.base();
    String r1 = "127.0.0.1:" + b1.getLocalPort();
    String r2 = "127.0.0.1:" + b2.getLocalPort();
    String rs2 = "/api/v1/services/127.0.0.1%3A18081/servers/127.0.0.1%3A" + b2.getLocalPort();

    // Without a credential: the form and its script, nothing of the state.
    HttpResponse<String> locked = send(req("/"));
    assertThat(locked.statusCode()).isEqualTo(200);
    assertThat(locked.body())
        .contains("data-reads=\"token\"", "id=\"locked\"")
        .doesNotContain(r1, "data-rs");
    assertThat(send(req("/static/status.js")).statusCode()).isEqualTo(200);
    assertThat(send(req("/api/v1/services")).statusCode()).isEqualTo(401);
    assertThat(send(req("/api/v1/events")).statusCode()).isEqualTo(401);
    assertThat(send(req("/metrics")).statusCode()).isEqualTo(401);
    // No session without the token; none on a GET.
    assertThat(send(req("/api/v1/session").POST(HttpRequest.BodyPublishers.noBody())).statusCode())
        .isEqualTo(401);
    assertThat(
            send(req("/api/v1/session")
                    .header("Authorization", "Bearer nope")
                    .POST(HttpRequest.BodyPublishers.noBody()))
                .statusCode())
        .isEqualTo(401);
    assertThat(
            send(req("/api/v1/session").header("Authorization", "Bearer " + secret)).statusCode())
        .isEqualTo(405);
    assertThat(sessions.minted()).isZero();

    // With the token: a cookie for this port that reads, and never changes anything.
    HttpResponse<String> minted =
        send(
            req("/api/v1/session")
                .header("Authorization", "Bearer " + secret)
                .POST(HttpRequest.BodyPublishers.noBody()));
    assertThat(minted.statusCode()).as(minted.body()).isEqualTo(200);
    assertThat(minted.body()).isEqualTo("{\"expires_in_seconds\":4}");
    String setCookie = minted.headers().firstValue("set-cookie").orElseThrow();
    // (Attribute names are case-insensitive: Netty writes HTTPOnly.)
    assertThat(setCookie)
        .startsWith(AdminSessions.cookieName(port) + "=")
        .containsIgnoringCase("; HttpOnly")
        .contains("SameSite=Strict", "Path=/", "Max-Age=4")
        .doesNotContain(secret);
    String cookie = setCookie.substring(0, setCookie.indexOf(';'));
    assertThat(send(req("/api/v1/services").header("Cookie", cookie)).statusCode()).isEqualTo(200);
    assertThat(send(req("/").header("Cookie", cookie)).body()).contains("data-rs=\"" + r1 + "\"");
    List<String> before = table.lines();
    HttpResponse<String> change =
        send(
            req(rs2 + "/state")
                .header("Cookie", cookie)
                .POST(HttpRequest.BodyPublishers.ofString("{\"state\":\"drain\"}")));
    assertThat(change.statusCode())
        .as("a session cookie is no credential for a change")
        .isEqualTo(401);
    assertThat(table.lines()).isEqualTo(before);
    assertThat(
            send(req("/api/v1/services")
                    .header("Cookie", AdminSessions.cookieName(port) + "=" + "0".repeat(64)))
                .statusCode())
        .isEqualTo(401);
    // A stream opened on that session ends with it.
    CompletableFuture<HttpResponse<InputStream>> stream =
        http.sendAsync(
            req("/api/v1/events").header("Cookie", cookie).build(),
            HttpResponse.BodyHandlers.ofInputStream());
    HttpResponse<InputStream> events = stream.get(5, TimeUnit.SECONDS);
    assertThat(events.statusCode()).isEqualTo(200);
    CompletableFuture<byte[]> whole =
        CompletableFuture.supplyAsync(
            () -> {
              try (InputStream in = events.body()) {
                return in.readAllBytes();
              } catch (java.io.IOException e) {
                return new byte[0];
              }
            });
    assertThat(whole.get(LIFETIME.toSeconds() + 5, TimeUnit.SECONDS))
        .as("the stream ended")
        .isNotNull();
    assertThat(send(req("/api/v1/services").header("Cookie", cookie)).statusCode())
        .as("expired")
        .isEqualTo(401);

    // The browser.
    chrome = new HeadlessChromium(dir);
    ChromeDriver browser = chrome.driver;
    browser.get(base + "/");
    waiting(10).until(d -> !d.findElements(By.id("locked")).isEmpty());
    assertThat(browser.findElements(By.cssSelector("tr[data-rs]"))).isEmpty();

    long mintedBefore = sessions.minted();
    browser.findElement(By.id("token")).sendKeys(secret);
    browser.findElement(By.cssSelector("#auth button")).click();
    waiting(10).until(d -> d.findElements(By.cssSelector("tr[data-rs]")).size() == 2);
    waiting(10)
        .until(d -> chrome.rowClass(r1).equals("st-up") && chrome.rowClass(r2).equals("st-up"));
    Cookie found = browser.manage().getCookieNamed(AdminSessions.cookieName(port));
    assertThat(found).isNotNull();
    Cookie c = Objects.requireNonNull(found, "asserted above");
    assertThat(c.isHttpOnly()).isTrue();
    assertThat(c.getValue()).isNotEqualTo(secret);
    assertThat(browser.executeScript("return document.cookie;"))
        .as("not readable by scripts")
        .isEqualTo("");
    browser.executeScript("window.notReloaded = true;");

    // Past the first session's end (its stream closed) and two renewals: still live.
    await().atMost(Duration.ofSeconds(20)).until(() -> sessions.minted() >= mintedBefore + 3);
    b1.close();
    waiting(10).until(d -> chrome.rowClass(r1).equals("st-down"));
    assertThat(browser.executeScript("return window.notReloaded === true;")).isEqualTo(true);

    // The buttons go with the header, as on loopback.
    waiting(10)
        .until(
            d -> {
              chrome.row(r2).findElement(By.cssSelector("button[data-action=drain]")).click();
              return true;
            });
    waiting(10).until(d -> chrome.rowClass(r2).equals("st-drain"));
    await()
        .atMost(Duration.ofSeconds(3))
        .until(() -> table.lines().contains("TCP 127.0.0.1:18081 -> " + r2 + " w=0"));

    List<LogEntry> console = chrome.console();
    assertThat(console)
        .filteredOn(e -> e.getLevel().intValue() >= Level.WARNING.intValue())
        .isEmpty();
  }

  /** The fixture's wait; here a row that is not drawn yet is looked for again too. */
  org.openqa.selenium.support.ui.FluentWait<org.openqa.selenium.WebDriver> waiting(int seconds) {
    return chrome.waiting(seconds).ignoring(org.openqa.selenium.NoSuchElementException.class);
  }
}
