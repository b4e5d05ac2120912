package io.fairway.config;

import io.fairway.config.model.AccessLogs;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** {@code access_log PATH combined|json} in a virtual_server (a Fairway extension). */
final class AccessLogParser {
  private AccessLogParser() {}

  /** The line's entry, or {@code null} after reporting what is wrong with it. */
  static AccessLogs.@Nullable Entry parse(Node c, Values v, List<AccessLogs.Entry> earlier) {
    if (!v.args(c, 2, 2)) {
      return null;
    }
    String path = c.arg(1);
    if (!path.equals(AccessLogs.Entry.SYSLOG) && !path.startsWith("/")) {
      v.error(c, "access_log: '" + path + "' is neither an absolute path nor 'syslog'");
      return null;
    }
    AccessLogs.Format format = null;
    for (AccessLogs.Format f : AccessLogs.Format.values()) {
      if (f.keyword().equals(c.arg(2))) {
        format = f;
      }
    }
    if (format == null) {
      v.error(c, "access_log: unknown format '" + c.arg(2) + "' (combined or json)");
      return null;
    }
    for (AccessLogs.Entry e : earlier) {
      if (e.path().equals(path)) {
        v.error(
            c,
            "access_log: "
                + path
                + " is already this virtual server's log (line "
                + e.location().line()
                + ")");
        return null;
      }
    }
    return new AccessLogs.Entry(Values.loc(c), path, format);
  }
}
