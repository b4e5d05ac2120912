package io.fairway.proxy.accesslog;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One access log file: records are queued by the event loops without blocking and written by one
 * thread of its own. A full queue drops the record and counts it ({@link #dropped}); a write error
 * is logged once per state change and the records of the failing stretch are counted as dropped
 * too. {@link #reopen} makes the thread close and reopen the file before its next batch (within a
 * fraction of a second, records or not), which is what logrotate needs after moving the file
 * (SIGUSR1).
 */
public final class AccessLogWriter implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(AccessLogWriter.class);

  /** The queue's default size: some seconds of a busy service, a few MB of records at most. */
  public static final int DEFAULT_CAPACITY = 16_384;

  private static final int BATCH = 256;

  private final Sink sink;
  private final AccessLogFormat format;
  private final BlockingQueue<AccessRecord> queue;
  private final LongAdder dropped = new LongAdder();
  private final LongAdder written = new LongAdder();
  private final AtomicBoolean reopen = new AtomicBoolean();
  private final Thread thread;
  private volatile boolean closing;
  private boolean failing;

  /** A writer to a file, opened for appending at the first record. */
  public AccessLogWriter(Path path, AccessLogFormat format, int capacity) {
    this(new FileSink(path), format, capacity);
  }

  /** A writer to {@code sink}, which only this writer's thread uses from now on. */
  public AccessLogWriter(Sink sink, AccessLogFormat format, int capacity) {
    this.sink = sink;
    this.format = format;
    this.queue = new ArrayBlockingQueue<>(capacity);
    this.thread = new Thread(this::run, "access-log " + sink.name());
    thread.setDaemon(true);
    thread.start();
  }

  /** The file or syslog target, as logs and metrics name it. */
  public String name() {
    return sink.name();
  }

  /**
   * Where a writer's lines go: a file or syslog. Used by the writer's thread only; {@link #close}
   * closes what is open, and the next {@link #write} opens it again (after logrotate moved it).
   */
  public interface Sink {
    /** Writes the lines (without their line ends); opens the target first if it is not open. */
    void write(List<String> lines) throws IOException;

    /** Closes what is open; never fails. */
    void close();

    /** The file or target, for logs and metrics. */
    String name();
  }

  public AccessLogFormat format() {
    return format;
  }

  /** Queues a record; never blocks. False when the queue was full and the record dropped. */
  public boolean offer(AccessRecord r) {
    if (closing || !queue.offer(r)) {
      dropped.increment();
      return false;
    }
    return true;
  }

  /** Records lost: the queue was full, or the file could not be written. */
  public long dropped() {
    return dropped.sum();
  }

  /** Records written to the file. */
  public long written() {
    return written.sum();
  }

  /** The file was moved away (logrotate): write to a new one at the path from the next record. */
  public void reopen() {
    reopen.set(true);
  }

  private void run() {
    List<AccessRecord> batch = new ArrayList<>(BATCH);
    while (!(closing && queue.isEmpty())) {
      try {
        AccessRecord first = queue.poll(200, TimeUnit.MILLISECONDS);
        if (first != null) {
          batch.add(first);
          queue.drainTo(batch, BATCH - 1);
        }
      } catch (InterruptedException e) {
        closing = true; // only its owner interrupts it
      }
      if (reopen.getAndSet(false)) {
        sink.close();
      }
      if (!batch.isEmpty()) {
        write(batch);
        batch.clear();
      }
    }
    sink.close();
  }

  private void write(List<AccessRecord> batch) {
    try {
      List<String> lines = new ArrayList<>(batch.size());
      for (AccessRecord r : batch) {
        lines.add(format.format(r));
      }
      sink.write(lines);
      written.add(batch.size());
      if (failing) {
        failing = false;
        log.info("access log {}: writing again", sink.name());
      }
    } catch (IOException | RuntimeException e) {
      dropped.add(batch.size());
      sink.close();
      if (!failing) {
        failing = true;
        log.warn(
            "access log {}: cannot write ({}); records are dropped until it can",
            sink.name(),
            e.toString());
      }
    }
  }

  /** Writes what is queued, then stops; waits a bounded time for it. */
  @Override
  public void close() {
    closing = true;
    try {
      thread.join(5000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
