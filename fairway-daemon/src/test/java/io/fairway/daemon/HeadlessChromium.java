package io.fairway.daemon;

import io.fairway.testkit.ExternalPrograms;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.logging.Level;
import org.openqa.selenium.By;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.FluentWait;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Debian's headless Chromium through chromedriver, as the status-page browser tests drive it: no
 * network of its own (no updates, no sync), its console recorded, its profile in the test's
 * directory. One fixture so that both tests run the page in the same browser. It lives in this
 * module's tests, not in fairway-testkit, so Selenium reaches no module that has no browser test.
 */
public final class HeadlessChromium implements AutoCloseable {
  static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  static final Path DRIVER = Path.of("/usr/bin/chromedriver");

  public final ChromeDriver driver;

  /** Skips the calling test without chromium and chromedriver, or fails it under CI=true. */
  public static void require() {
    ExternalPrograms.requireThat(
        Files.isExecutable(CHROMIUM) && Files.isExecutable(DRIVER),
        () -> "chromium / chromium-driver not installed (" + CHROMIUM + ", " + DRIVER + ")");
  }

  /** Starts a browser whose profile is {@code dir/chrome}. */
  public HeadlessChromium(Path dir) throws IOException {
    ChromeOptions o = new ChromeOptions();
    o.setBinary(CHROMIUM.toFile());
    o.addArguments(
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--user-data-dir=" + Files.createDirectories(dir.resolve("chrome")),
        "--window-size=1400,700");
    LoggingPreferences logs = new LoggingPreferences();
    logs.enable(LogType.BROWSER, Level.ALL);
    o.setCapability("goog:loggingPrefs", logs);
    ChromeDriverService service =
        new ChromeDriverService.Builder()
            .usingDriverExecutable(DRIVER.toFile())
            .usingAnyFreePort()
            .build();
    driver = new ChromeDriver(service, o);
  }

  /**
   * A wait polling every 100 ms. The page redraws its rows from the event stream; an element read
   * mid-redraw is just read again.
   */
  public FluentWait<WebDriver> waiting(int seconds) {
    return new WebDriverWait(driver, Duration.ofSeconds(seconds))
        .pollingEvery(Duration.ofMillis(100))
        .ignoring(StaleElementReferenceException.class);
  }

  /** The status page's row of real server {@code rs} (ip:port). */
  WebElement row(String rs) {
    return driver.findElement(By.cssSelector("tr[data-rs='" + rs + "']"));
  }

  /** The class of {@link #row}: the server's state ({@code st-up}, {@code st-down}, ...). */
  String rowClass(String rs) {
    return Objects.requireNonNull(row(rs).getAttribute("class"), "every row has its state's class");
  }

  /** What the page's scripts logged to the console since the last call. */
  public List<LogEntry> console() {
    return driver.manage().logs().get(LogType.BROWSER).getAll();
  }

  @Override
  public void close() {
    driver.quit();
  }
}
