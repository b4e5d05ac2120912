package io.fairway.proxy.accesslog;

import io.fairway.config.model.AccessLogs;
import io.fairway.plan.Plan;
import io.fairway.plan.ServicePlan;
import io.fairway.table.Service;
import io.fairway.table.ServiceKey;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The access log writers of the running plan: one per file (or syslog target) and format, shared by
 * every service that names it. A new plan reuses the writers it keeps, opens those it adds and
 * closes those it drops; a plan whose files cannot be opened is refused first ({@link #refusal}),
 * so an invalid reload leaves the running writers alone.
 *
 * <p>Thread-safety: {@link #refusal}, {@link #open} and {@link #close} are called under the table's
 * lock; {@link #reopen} and {@link #stats} may be called from any thread.
 */
public final class AccessLogFiles implements AutoCloseable {
  /** What one writer has done, for metrics. */
  public record Stat(String log, AccessLogFormat format, long written, long dropped) {}

  private final int capacity;
  private final SyslogTarget syslog;
  private volatile Map<String, AccessLogWriter> writers = Map.of();

  /**
   * @param capacity each writer's queue, in records
   * @param syslog where {@code access_log syslog} sends its lines
   */
  public AccessLogFiles(int capacity, SyslogTarget syslog) {
    this.capacity = capacity;
    this.syslog = Objects.requireNonNull(syslog, "syslog");
  }

  /** With the default queue and syslog target ({@link SyslogTarget#fromSystem}). */
  public static AccessLogFiles defaults() {
    return new AccessLogFiles(AccessLogWriter.DEFAULT_CAPACITY, SyslogTarget.fromSystem());
  }

  private static String id(AccessLogs.Entry e) {
    return e.path() + " " + e.format().keyword();
  }

  /**
   * Why {@code plan}'s logs cannot be written, as {@code FILE:LINE: ...}, or null. A file already
   * open is fine; a new one is created (appended to if it exists) to prove it can be.
   */
  public @Nullable String refusal(Plan plan) {
    Map<String, String> formats = new HashMap<>();
    for (ServicePlan sp : plan.services()) {
      for (AccessLogs.Entry e : sp.accessLogs().logs()) {
        if (e.syslog()) {
          continue;
        }
        String where = e.location() + ": access_log " + e.path();
        String other = formats.putIfAbsent(e.path(), e.format().keyword());
        if (other != null && !other.equals(e.format().keyword())) {
          return where + ": already written as " + other + " by another virtual_server";
        }
        if (!writers.containsKey(id(e))) {
          try (OutputStream out =
              Files.newOutputStream(
                  Path.of(e.path()), StandardOpenOption.CREATE, StandardOpenOption.APPEND)) {
            out.flush();
          } catch (IOException | SecurityException ex) {
            return where + ": cannot open it for writing (" + reason(ex) + ")";
          }
        }
      }
    }
    return null;
  }

  private static String reason(Exception e) {
    if (e instanceof java.nio.file.NoSuchFileException) {
      return "no such directory";
    }
    if (e instanceof java.nio.file.AccessDeniedException) {
      return "permission denied";
    }
    if (e instanceof java.nio.file.FileSystemException f && f.getReason() != null) {
      return f.getReason();
    }
    return e.toString();
  }

  /**
   * Opens the writers {@code plan} adds, closes those it no longer names, and returns the log of
   * each of its table services (services without {@code access_log} are absent).
   */
  public synchronized Map<ServiceKey, AccessLog> open(Plan plan) {
    Map<String, AccessLogWriter> before = writers;
    Map<String, AccessLogWriter> next = new LinkedHashMap<>();
    Map<ServiceKey, AccessLog> logs = new HashMap<>();
    for (ServicePlan sp : plan.services()) {
      List<AccessLogWriter> mine = new ArrayList<>();
      for (AccessLogs.Entry e : sp.accessLogs().logs()) {
        AccessLogWriter w = next.get(id(e));
        if (w == null) {
          w = before.get(id(e));
          if (w == null) {
            w = writer(e);
          }
          next.put(id(e), w);
        }
        mine.add(w);
      }
      if (!mine.isEmpty()) {
        AccessLog log = AccessLog.of(mine);
        for (Service s : sp.services()) {
          logs.put(s.key(), log);
        }
      }
    }
    writers = Map.copyOf(next);
    before.forEach(
        (id, w) -> {
          if (!next.containsKey(id)) {
            w.close(); // writes what it has queued first
          }
        });
    return logs;
  }

  private AccessLogWriter writer(AccessLogs.Entry e) {
    AccessLogFormat f =
        Objects.requireNonNull(
            AccessLogFormat.of(e.format().keyword()), "the plan holds known formats only");
    return e.syslog()
        ? new AccessLogWriter(syslog.sink(), f, capacity)
        : new AccessLogWriter(Path.of(e.path()), f, capacity);
  }

  /** Every file is closed and opened again at its path: logrotate moved them (SIGUSR1). */
  public void reopen() {
    writers.values().forEach(AccessLogWriter::reopen);
  }

  /** Each open writer's counters, in the plan's order. */
  public List<Stat> stats() {
    List<Stat> out = new ArrayList<>();
    for (AccessLogWriter w : writers.values()) {
      out.add(new Stat(w.name(), w.format(), w.written(), w.dropped()));
    }
    return out;
  }

  /** Writes what is queued and closes every writer. */
  @Override
  public synchronized void close() {
    Map<String, AccessLogWriter> all = writers;
    writers = Map.of();
    all.values().forEach(AccessLogWriter::close);
  }
}
