package io.fairway.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/** A command's signal handler runs its action and, once closed, gives the signal back. */
class SignalsTest {

  @Test
  void handlesTheSignalAndRestoresThePreviousHandler() throws Exception {
    // SIGWINCH: harmless to raise in the test JVM, and nobody else's.
    Signal winch = new Signal("WINCH");
    SignalHandler previous = s -> { };
    SignalHandler original = Signal.handle(winch, previous);
    try {
      CountDownLatch ran = new CountDownLatch(1);
      Signals.Restore restore = Signals.on("WINCH", ran::countDown);
      Signal.raise(winch);
      assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();

      restore.close();

      assertThat(Signal.handle(winch, original)).isSameAs(previous);
    } finally {
      Signal.handle(winch, original);
    }
  }
}
