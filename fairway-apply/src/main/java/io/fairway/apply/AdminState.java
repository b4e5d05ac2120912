package io.fairway.apply;

import java.util.Locale;

/**
 * What an operator set on a real server, over what the checkers say.
 *
 * <ul>
 *   <li>{@link #NONE}: the checkers decide.
 *   <li>{@link #DRAIN}: weight 0 and left in the table, so established connections continue and no
 *       new ones are scheduled (keepalived's inhibit semantics, whatever the server's {@code
 *       inhibit_on_failure}).
 *   <li>{@link #MAINT}: out of the table as a failed check without inhibit takes it out.
 * </ul>
 */
public enum AdminState {
  NONE,
  DRAIN,
  MAINT;

  /** {@code none}, {@code drain}, {@code maint}. */
  public String wire() {
    return name().toLowerCase(Locale.ROOT);
  }
}
