package io.fairway.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class DeferredSignalTest {
  private final AtomicInteger runs = new AtomicInteger();
  private final DeferredSignal hup = new DeferredSignal(runs::incrementAndGet);

  @Test
  void signalsBeforeOpenRunOnceWhenItOpens() {
    hup.signal();
    hup.signal();
    assertThat(runs).hasValue(0);
    hup.open();
    assertThat(runs).hasValue(1);
  }

  @Test
  void openWithoutASignalRunsNothingAndLaterSignalsRunAtOnce() {
    hup.open();
    assertThat(runs).hasValue(0);
    hup.signal();
    hup.signal();
    assertThat(runs).hasValue(2);
  }

  @Test
  void afterCloseNothingRunsNotEvenAPendingSignal() {
    hup.signal();
    hup.close();
    hup.open();
    hup.signal();
    assertThat(runs).hasValue(0);
  }
}
