package io.fairway.os.script;

/**
 * A script cannot be run as configured: not an absolute path, missing, not executable, writable by
 * others, or out of reach of the user it would run as. {@link #reason} is one line that starts with
 * the configuration element it was given (a checker, a notify or a {@code vrrp_script}), fit to
 * show an operator as is.
 */
public final class ScriptRejectedException extends RuntimeException {
  private final String reason;

  public ScriptRejectedException(String reason) {
    super(reason);
    this.reason = reason;
  }

  /** The message, kept apart from {@link #getMessage}, which may be null for all NullAway knows. */
  public String reason() {
    return reason;
  }
}
