package io.fairway.daemon.log;

import ch.qos.logback.classic.pattern.ClassicConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;

/** {@code %priority}: the journal's {@code <N>} syslog priority prefix, or nothing off the journal. */
public final class PriorityPrefixConverter extends ClassicConverter {
  @Override
  public String convert(ILoggingEvent event) {
    return JournalFormat.journal() ? JournalFormat.prefix(event.getLevel()) : "";
  }
}
