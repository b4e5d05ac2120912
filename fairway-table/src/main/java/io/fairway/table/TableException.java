package io.fairway.table;

/**
 * A table operation the forwarder refused. The {@link Reason} says why in the kernel's terms, so
 * callers can apply keepalived's tolerance rules (an add that finds the entry already there is
 * success; a set that finds no destination falls back to add) without parsing messages.
 */
public class TableException extends Exception {
  private static final long serialVersionUID = 1L;

  /** Why an operation failed. */
  public enum Reason {
    /** EEXIST: the service or destination is already there. */
    EXISTS,
    /** ENOENT: no such destination, or unknown scheduler / persistence engine. */
    NOT_FOUND,
    /** ESRCH: no such service. */
    NO_SERVICE,
    /** ERANGE: weight or thresholds out of range (e.g. lower above upper threshold). */
    RANGE,
    /** EINVAL: a malformed request, or an address the kernel refuses (not unicast). */
    INVALID,
    /** EPERM: missing CAP_NET_ADMIN. */
    PERMISSION,
    /** The forwarder is not there (no IPVS in this kernel). */
    UNAVAILABLE,
    /** Anything else (I/O error, unexpected errno). */
    OTHER
  }

  private final Reason reason;
  private final int errno;

  public TableException(Reason reason, int errno, String message) {
    super(message);
    this.reason = reason;
    this.errno = errno;
  }

  public TableException(Reason reason, String message) {
    this(reason, 0, message);
  }

  public TableException(Reason reason, String message, Throwable cause) {
    super(message, cause);
    this.reason = reason;
    this.errno = 0;
  }

  public Reason reason() {
    return reason;
  }

  /** The kernel's errno, or 0 when the failure did not come from the kernel. */
  public int errno() {
    return errno;
  }
}
