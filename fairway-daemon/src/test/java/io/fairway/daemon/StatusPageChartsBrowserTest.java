package io.fairway.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.fairway.proxy.ProxyOptions;
import io.fairway.proxy.plane.ProxyTable;
import io.fairway.testkit.FreePorts;
import java.io.File;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.logging.LogEntry;

/**
 * The status page's live columns and charts in headless Chromium, over the userspace HTTP proxy
 * with real HTTP_GET checks against two loopback HTTP servers: traffic moves the request rate, the
 * p99 and the charts; the last check shows the code the server answered; a server whose health
 * answer turns 503 turns its row and its charts red; the page's strict CSP is not violated (the
 * browser's console has nothing to say); at a phone's width nothing but the tables' own scroll
 * boxes is wider than the screen. Leaves the 1366×768 screenshot in target/ (docs/img has a copy).
 */
class StatusPageChartsBrowserTest {
  @TempDir Path dir;

  // Started by each test that needs it, before any use; closed after each when started.
  @SuppressWarnings("NullAway.Init")
  ProxyTable table;

  @SuppressWarnings("NullAway.Init")
  AdminFixture admin;

  @SuppressWarnings("NullAway.Init")
  HeadlessChromium chrome;

  @SuppressWarnings("NullAway.Init")
  HttpServer b1;

  @SuppressWarnings("NullAway.Init")
  HttpServer b2;

  @SuppressWarnings("NullAway.Init")
  ScheduledExecutorService load;

  final AtomicInteger health1 = new AtomicInteger(200);

  @AfterEach
  void stop() throws Exception {
    if (load != null) {
      load.shutdownNow();
      load.awaitTermination(10, TimeUnit.SECONDS);
    }
    if (chrome != null) {
      chrome.close();
    }
    if (admin != null) {
      admin.close();
    }
    if (table != null) {
      table.close();
    }
    for (HttpServer b : new HttpServer[] {b1, b2}) {
      if (b != null) {
        b.stop(0);
      }
    }
  }

  /** An HTTP server: {@code /health} answers {@code health}, everything else 200 "hello". */
  static HttpServer backend(AtomicInteger health) throws Exception {
    HttpServer s = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    s.createContext(
        "/",
        x -> {
          byte[] body = "hello\n".getBytes(StandardCharsets.US_ASCII);
          int code = x.getRequestURI().getPath().equals("/health") ? health.get() : 200;
          x.sendResponseHeaders(code, body.length);
          x.getResponseBody().write(body);
          x.close();
        });
    s.start();
    return s;
  }

  static String rs(int port) {
    return """
            real_server 127.0.0.1 %d {
                weight 1
                HTTP_GET {
                    url {
                        path /health
                        status_code 200
                    }
                    connect_timeout 1
                    retry 0
                }
            }
        """
        .formatted(port);
  }

  @Test
  void trafficAndChecksMoveTheColumnsAndChartsAndADownServerTurnsRed() throws Exception {
    HeadlessChromium.require();
    b1 = backend(health1);
    b2 = backend(new AtomicInteger(200));
    int vip = FreePorts.loopback();
    table = new ProxyTable(ProxyOptions.builder().ioThreads(1).build(), null);
    admin =
        AdminFixture.in(dir, table)
            .userspace()
            .start(
                AdminFixture.virtualServer(
                    vip, "HTTP", rs(b1.getAddress().getPort()) + rs(b2.getAddress().getPort())));
    String base = admin.base();
    String r1 = "127.0.0.1:" + b1.getAddress().getPort();
    String r2 = "127.0.0.1:" + b2.getAddress().getPort();

    HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    HttpResponse<String> page =
        client.send(
            HttpRequest.newBuilder(URI.create(base + "/")).build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(page.headers().firstValue("Content-Security-Policy").orElseThrow())
        .contains("script-src 'self'", "style-src 'self'")
        .doesNotContain("unsafe");
    // Without the script too, the virtual server has its total row.
    assertThat(page.body())
        .containsPattern(
            "<tfoot><tr class=\"total[^\"]*\"><td>total</td>"
                + "<td class=\"state\">[0-2] / 2 up</td>");

    // Bounded load: 20 requests a second for at most two minutes, stopped with the test.
    load = Executors.newSingleThreadScheduledExecutor();
    AtomicInteger sent = new AtomicInteger();
    HttpRequest hello = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + vip + "/")).build();
    load.scheduleAtFixedRate(
        () -> {
          if (sent.incrementAndGet() > 2_400) {
            throw new IllegalStateException("load bound reached");
          }
          try {
            client.send(hello, HttpResponse.BodyHandlers.discarding());
          } catch (java.io.IOException e) {
            // a request refused while a server leaves the pool: the page counts it, not the test
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        },
        0,
        50,
        TimeUnit.MILLISECONDS);

    chrome = new HeadlessChromium(dir);
    ChromeDriver browser = chrome.driver;
    browser.manage().window().setSize(new Dimension(1366, 768));
    browser.get(base + "/");
    var wait = chrome.waiting(20);
    wait.until(d -> chrome.rowClass(r1).equals("st-up") && chrome.rowClass(r2).equals("st-up"));

    // Traffic: the request rate, the p99 and the charts move; the last check shows the code.
    for (String rs : List.of(r1, r2)) {
      wait.until(d -> rate(chrome.row(rs), "reqrate") > 0);
      wait.until(d -> chrome.row(rs).findElement(By.className("p99")).getText().endsWith(" ms"));
      wait.until(d -> points(chrome.row(rs), "reqRate") >= 3);
      wait.until(
          d ->
              chrome
                  .row(rs)
                  .findElement(By.className("check"))
                  .getText()
                  .startsWith("http success: url /health ok: status 200 ("));
    }
    assertThat(chrome.row(r1).findElements(By.cssSelector(".charts.down"))).isEmpty();

    // The virtual server's total row: its servers' counters summed within one drawing of the
    // table, its own rate and chart.
    wait.until(d -> addsUp(browser, "requests") && addsUp(browser, "conns"));
    wait.until(d -> rate(total(browser), "reqrate") > 0);
    wait.until(d -> points(total(browser), "reqRate") >= 3);
    assertThat(total(browser).findElement(By.className("state")).getText()).isEqualTo("2 / 2 up");

    // A check changes: the server answers 503; its row and its charts turn red, the code shows.
    health1.set(503);
    wait.until(d -> chrome.rowClass(r1).equals("st-down"));
    wait.until(d -> !chrome.row(r1).findElements(By.cssSelector(".charts.down")).isEmpty());
    wait.until(
        d ->
            chrome
                .row(r1)
                .findElement(By.className("check"))
                .getText()
                .startsWith("http failure: /health: status 503"));
    assertThat(chrome.row(r2).getAttribute("class")).isEqualTo("st-up");
    assertThat(chrome.row(r2).findElements(By.cssSelector(".charts.down"))).isEmpty();
    assertThat(chrome.row(r1).findElement(By.className("for")).getText()).matches("\\d+s");
    wait.until(d -> total(browser).findElement(By.className("state")).getText().equals("1 / 2 up"));

    // At 1366×768, one row up and one down: the picture in docs/.
    wait.until(d -> points(chrome.row(r2), "reqRate") >= 8);
    File shot = browser.getScreenshotAs(OutputType.FILE);
    Files.copy(
        shot.toPath(),
        Path.of("target", "status-page-live.png"),
        StandardCopyOption.REPLACE_EXISTING);

    // A phone's width: the page itself does not scroll sideways (each table scrolls in its box).
    browser.manage().window().setSize(new Dimension(390, 844));
    wait.until(
        d ->
            (Boolean)
                browser.executeScript(
                    "return document.documentElement.scrollWidth <= window.innerWidth;"));

    List<LogEntry> console = chrome.console();
    assertThat(console)
        .as("no CSP violation, no script error")
        .filteredOn(
            e ->
                e.getLevel().intValue() >= Level.WARNING.intValue()
                    || e.getMessage().contains("Content Security Policy"))
        .isEmpty();
  }

  /** The virtual server's total row. */
  static WebElement total(ChromeDriver browser) {
    return browser.findElement(By.cssSelector("table.vs tfoot tr.total"));
  }

  /**
   * Whether the total row's {@code cls} cell is the sum of the servers' and above 0, all read in
   * one script so no redraw falls between the reads.
   */
  static boolean addsUp(ChromeDriver browser, String cls) {
    @SuppressWarnings("unchecked")
    List<Object> cells =
        (List<Object>)
            Objects.requireNonNull(
                browser.executeScript(
                    "var c = arguments[0], t = document.querySelector('table.vs');"
                        + "return [t.tFoot.rows[0]].concat(Array.from(t.tBodies[0].rows)).map("
                        + "  function (r) { return r.querySelector('.' + c).textContent; });",
                    cls),
                "the script returns a list");
    long sum = 0;
    for (Object c : cells.subList(1, cells.size())) {
      sum += Long.parseLong(c.toString().trim());
    }
    long totalValue = Long.parseLong(cells.get(0).toString().trim());
    return totalValue > 0 && totalValue == sum;
  }

  /** The number in a rate cell ("12.5 (max 14.0)"), or -1 while it is empty. */
  static double rate(WebElement row, String cls) {
    String t = row.findElement(By.className(cls)).getText().trim();
    return t.isEmpty() ? -1 : Double.parseDouble(t.split(" ")[0]);
  }

  /** How many points the row's chart of {@code series} draws. */
  static int points(WebElement row, String series) {
    String n =
        row.findElement(By.cssSelector("svg[data-series='" + series + "']"))
            .getAttribute("data-points");
    return n == null ? 0 : Integer.parseInt(n);
  }
}
