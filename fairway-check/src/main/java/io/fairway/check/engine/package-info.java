/**
 * The engine: per-checker state machines, per-real-server aggregation, per-virtual-server quorum,
 * and the runners that drive checkers through time.
 *
 * <p>Why time is behind {@link io.fairway.check.engine.EngineClock}: the rules that matter to an
 * operator — "the first failure after start is final", "retry 2 means three failures, one second
 * apart" — are about time, and a test that sleeps to check them is slow and flaky. With {@link
 * io.fairway.check.engine.ManualClock} they are exact.
 */
@NullMarked
package io.fairway.check.engine;

import org.jspecify.annotations.NullMarked;
