package io.fairway.check.engine;

import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/** Real time, on a {@link ScheduledExecutorService} such as a Netty event loop group. */
public final class ExecutorScheduler implements Scheduler {
    private final ScheduledExecutorService executor;

    public ExecutorScheduler(ScheduledExecutorService executor) {
        this.executor = executor;
    }

    @Override
    public Cancellable schedule(Runnable task, Duration delay) {
        var f = executor.schedule(task, delay.toNanos(), TimeUnit.NANOSECONDS);
        return () -> f.cancel(false);
    }

    @Override
    public long nanoTime() {
        return System.nanoTime();
    }
}
