package io.fairway.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A command's signal handler runs its action and, once closed, gives the signal back. */
class SignalsTest {

  @Test
  void handlesTheSignalAndRestoresThePreviousHandler() throws Exception {
    // SIGWINCH: harmless to raise in the test JVM, and nobody else's.
    Object winch = Signals.SunSignal.named("WINCH");
    Object previous = Signals.SunSignal.handler(() -> {});
    Object original = Signals.SunSignal.handle(winch, previous);
    try {
      CountDownLatch ran = new CountDownLatch(1);
      Signals.Restore restore = Signals.on("WINCH", ran::countDown);
      Signals.SunSignal.raise(winch);
      assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();

      restore.close();

      assertThat(Signals.SunSignal.handle(winch, original)).isSameAs(previous);
    } finally {
      Signals.SunSignal.handle(winch, original);
    }
  }

  @Test
  void anUnknownSignalNameIsRefusedAsTheJdkRefusesIt() {
    assertThatThrownBy(() -> Signals.SunSignal.named("NOSUCH"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void readsWhichSignalsAreIgnoredFromProcStatus() {
    // nohup: SIGHUP (1) ignored; a background job of sh: SIGINT (2) and SIGQUIT (3).
    String nohup = "Name:\tjava\nSigBlk:\t0000000000000000\nSigIgn:\t0000000000000001\n";
    assertThat(Signals.ignored(nohup, 1)).isTrue();
    assertThat(Signals.ignored(nohup, 15)).isFalse();
    String background = "SigIgn:\t0000000000000006\nSigCgt:\t0000000000004000\n";
    assertThat(Signals.ignored(background, 1)).isFalse();
    assertThat(Signals.ignored(background, 2)).isTrue();
    assertThat(Signals.ignored(background, 3)).isTrue();
    assertThat(Signals.ignored("SigIgn:\t0000000000004000\n", 15)).isTrue();
    assertThat(Signals.ignored("no such line", 1)).isFalse();
  }
}
