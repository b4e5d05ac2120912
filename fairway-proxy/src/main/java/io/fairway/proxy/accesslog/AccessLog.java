package io.fairway.proxy.accesslog;

import java.util.List;

/**
 * Where a service's records go: its {@code access_log} files, each with its format. Called on the
 * event loops; never blocks (see {@link AccessLogWriter#offer}).
 */
public interface AccessLog {
  /** No access log: the data plane builds no record at all. */
  AccessLog NONE = r -> {};

  void record(AccessRecord r);

  /** To every one of {@code writers}. */
  static AccessLog of(List<AccessLogWriter> writers) {
    if (writers.isEmpty()) {
      return NONE;
    }
    List<AccessLogWriter> all = List.copyOf(writers);
    if (all.size() == 1) {
      AccessLogWriter w = all.get(0);
      return w::offer;
    }
    return r -> {
      for (AccessLogWriter w : all) {
        w.offer(r);
      }
    };
  }
}
