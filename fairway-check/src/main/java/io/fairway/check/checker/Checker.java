package io.fairway.check.checker;

import java.time.Duration;
import java.util.function.Consumer;

/**
 * One running checker. {@link #check} starts one attempt and must not block: network checkers run on the event
 * loop, scripts on a bounded pool. The engine guards every attempt with {@link #deadline()}: a checker that never
 * answers counts as failed rather than leaving its server silently stuck.
 */
public interface Checker extends AutoCloseable {

    /** Starts one attempt; {@code done} is called once with the result, on any thread. */
    void check(Consumer<CheckResult> done);

    /** How long an attempt may take before the engine declares it failed. */
    Duration deadline();

    /** Releases resources held between attempts. */
    @Override
    default void close() {
    }
}
