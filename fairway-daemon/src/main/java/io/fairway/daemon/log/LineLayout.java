package io.fairway.daemon.log;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.CoreConstants;
import ch.qos.logback.core.LayoutBase;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;

/**
 * One log line: {@code 2026-12-01T20:24:19.723Z INFO Daemon: message} on a terminal or in a file,
 * {@code <6>INFO Daemon: message} in the journal (priority prefix, no timestamp: the journal keeps
 * the time). Written out rather than as a logback pattern: see {@link LogConfigurator}.
 */
public final class LineLayout extends LayoutBase<ILoggingEvent> {
  private static final DateTimeFormatter ISO =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSXXX").withZone(ZoneId.systemDefault());

  private final boolean journal;

  public LineLayout(boolean journal) {
    this.journal = journal;
  }

  @Override
  public String doLayout(ILoggingEvent event) {
    StringBuilder sb = new StringBuilder(128);
    if (journal) {
      sb.append(JournalFormat.prefix(event.getLevel()));
    } else {
      sb.append(ISO.format(Instant.ofEpochMilli(event.getTimeStamp()))).append(' ');
    }
    String level = event.getLevel().toString();
    sb.append(level);
    for (int i = level.length(); i < 5; i++) {
      sb.append(' ');
    }
    String logger = event.getLoggerName();
    sb.append(' ')
        .append(logger.substring(logger.lastIndexOf('.') + 1))
        .append(": ")
        .append(event.getFormattedMessage())
        .append(CoreConstants.LINE_SEPARATOR);
    IThrowableProxy t = event.getThrowableProxy();
    if (t != null) {
      sb.append(ThrowableProxyUtil.asString(t)).append(CoreConstants.LINE_SEPARATOR);
    }
    return sb.toString();
  }
}
