package io.fairway.vrrp.state;

import java.util.Optional;

/**
 * A vrrp_script's verdict with its {@code rise}/{@code fall} hysteresis: a good script turns failed
 * after {@code fall} failures in a row, a failed one good after {@code rise} successes. Before the
 * first verdict it is neither (unless {@code init_fail}), as keepalived's INIT state.
 */
public final class ScriptStatus {
  private final int rise;
  private final int fall;
  private Optional<Boolean> ok;
  private int run;

  public ScriptStatus(int rise, int fall, boolean initFail) {
    this.rise = rise;
    this.fall = fall;
    this.ok = initFail ? Optional.of(false) : Optional.empty();
  }

  /** Records one run; true when the verdict changed. */
  public boolean record(boolean success) {
    if (ok.isEmpty()) {
      ok = Optional.of(success);
      run = 0;
      return true;
    }
    if (success == ok.get()) {
      run = 0;
      return false;
    }
    run++;
    if (run >= (success ? rise : fall)) {
      ok = Optional.of(success);
      run = 0;
      return true;
    }
    return false;
  }

  /** The verdict, empty before the first one. */
  public Optional<Boolean> ok() {
    return ok;
  }
}
