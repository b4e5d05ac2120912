package io.fairway.proxy.l4;

import io.netty.channel.RecvByteBufAllocator;
import io.netty.util.UncheckedBooleanSupplier;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * Counts what one side of an L4 connection receives, underneath the pipeline: the transport reports
 * every read to its allocator handle, including the bytes it splices kernel-to-kernel, which never
 * reach a handler as a buffer. The byte counters and the idle timeout of a relay therefore work the
 * same whether it copies or splices.
 *
 * <p>One meter per channel, used only on that channel's event loop.
 */
public final class TrafficMeter implements RecvByteBufAllocator {
  private final RecvByteBufAllocator sizing;
  private @Nullable LongAdder sink;

  /** Bytes read before the destination was known (a client's first bytes, or its FIN). */
  private long unclaimed;

  private long lastActivity = System.nanoTime();

  /** Every byte this side read, for the connection's access-log record. */
  private long total;

  /** Runs once, at the first byte read after it was set. */
  private @Nullable Runnable onFirstRead;

  /**
   * @param sizing the allocator that decides the read sizes (the channel's own)
   */
  public TrafficMeter(RecvByteBufAllocator sizing) {
    this.sizing = sizing;
  }

  /** Where the counted bytes go from now on (the destination's counter, once it is chosen). */
  void countInto(LongAdder sink) {
    this.sink = sink;
    sink.add(unclaimed);
    unclaimed = 0;
  }

  /**
   * Runs {@code r} at the first byte this side reads, or now if it has read one already. On the
   * channel's event loop.
   */
  void onFirstRead(Runnable r) {
    if (total > 0) {
      r.run();
    } else {
      onFirstRead = r;
    }
  }

  /** Bytes this side has read so far (spliced ones too). On the channel's event loop. */
  long total() {
    return total;
  }

  /** {@link System#nanoTime()} of the last read that returned data. */
  long lastActivity() {
    return lastActivity;
  }

  /** Bytes read past the allocator (the tail a splice left behind at a FIN). */
  void count(int n) {
    total += n;
    LongAdder s = sink;
    if (s != null) {
      s.add(n);
    } else {
      unclaimed += n;
    }
    lastActivity = System.nanoTime();
  }

  @Override
  public ExtendedHandle newHandle() {
    return new Counting((ExtendedHandle) sizing.newHandle());
  }

  private final class Counting implements ExtendedHandle {
    private final ExtendedHandle d;
    private boolean active;

    Counting(ExtendedHandle d) {
      this.d = d;
    }

    @Override
    public void lastBytesRead(int n) {
      if (n > 0) {
        active = true;
        total += n;
        Runnable first = onFirstRead;
        if (first != null) {
          onFirstRead = null;
          first.run();
        }
        LongAdder s = sink;
        if (s != null) {
          s.add(n);
        } else {
          unclaimed += n;
        }
      }
      d.lastBytesRead(n);
    }

    @Override
    public void readComplete() {
      // One clock read per readiness event, not per read.
      if (active) {
        active = false;
        lastActivity = System.nanoTime();
      }
      d.readComplete();
    }

    @Override
    public io.netty.buffer.ByteBuf allocate(io.netty.buffer.ByteBufAllocator alloc) {
      return d.allocate(alloc);
    }

    @Override
    public int guess() {
      return d.guess();
    }

    @Override
    public void reset(io.netty.channel.ChannelConfig config) {
      d.reset(config);
    }

    @Override
    public void incMessagesRead(int n) {
      d.incMessagesRead(n);
    }

    @Override
    public int lastBytesRead() {
      return d.lastBytesRead();
    }

    @Override
    public void attemptedBytesRead(int n) {
      d.attemptedBytesRead(n);
    }

    @Override
    public int attemptedBytesRead() {
      return d.attemptedBytesRead();
    }

    @Override
    public boolean continueReading() {
      return d.continueReading();
    }

    @Override
    public boolean continueReading(UncheckedBooleanSupplier maybeMoreDataSupplier) {
      return d.continueReading(maybeMoreDataSupplier);
    }
  }
}
