package io.fairway.config.model;

import io.fairway.config.model.base.Location;
import java.util.List;

/**
 * A virtual server's {@code access_log} lines (a Fairway extension), in file order.
 *
 * @param logs each file (or syslog) with its format
 */
public record AccessLogs(List<Entry> logs) {
  public static final AccessLogs NONE = new AccessLogs(List.of());

  public AccessLogs {
    logs = List.copyOf(logs);
  }

  /** The line format. */
  public enum Format {
    COMBINED("combined"),
    JSON("json");

    private final String keyword;

    Format(String keyword) {
      this.keyword = keyword;
    }

    public String keyword() {
      return keyword;
    }
  }

  /**
   * One {@code access_log PATH FORMAT}.
   *
   * @param location where it was written
   * @param path an absolute file path, or {@link #SYSLOG}
   * @param format the line format
   */
  public record Entry(Location location, String path, Format format) {
    /** The path that means syslog (journald) instead of a file. */
    public static final String SYSLOG = "syslog";

    public boolean syslog() {
      return SYSLOG.equals(path);
    }

    /** Equal whatever line it was written on: a reload that only moves it changes nothing. */
    @Override
    public boolean equals(Object o) {
      return o instanceof Entry e && e.path.equals(path) && e.format == format;
    }

    @Override
    public int hashCode() {
      return path.hashCode() * 31 + format.hashCode();
    }
  }
}
