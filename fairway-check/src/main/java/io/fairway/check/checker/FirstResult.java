package io.fairway.check.checker;

import java.util.function.Consumer;

/**
 * Passes on only the first result of one attempt. A network attempt can end several ways at once
 * (an answer, then the close it causes; a timeout racing a reset), and the engine must hear exactly
 * one. Confined to the attempt's event loop, so a plain field is enough.
 */
final class FirstResult implements Consumer<CheckResult> {
  private final Consumer<CheckResult> done;
  private boolean finished;

  FirstResult(Consumer<CheckResult> done) {
    this.done = done;
  }

  @Override
  public void accept(CheckResult r) {
    if (!finished) {
      finished = true;
      done.accept(r);
    }
  }
}
