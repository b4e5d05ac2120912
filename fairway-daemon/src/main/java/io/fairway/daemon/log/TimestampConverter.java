package io.fairway.daemon.log;

import ch.qos.logback.classic.pattern.ClassicConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;

/**
 * {@code %stamp}: the line's ISO-8601 time and a space, or nothing in the journal, which stamps
 * every line itself.
 */
public final class TimestampConverter extends ClassicConverter {
  private static final DateTimeFormatter ISO =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSXXX").withZone(ZoneId.systemDefault());

  @Override
  public String convert(ILoggingEvent event) {
    return JournalFormat.journal() ? "" : ISO.format(Instant.ofEpochMilli(event.getTimeStamp())) + " ";
  }
}
