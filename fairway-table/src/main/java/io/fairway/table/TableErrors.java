package io.fairway.table;

/**
 * The one place that turns a kernel errno into a {@link TableException}, so the kernel table and
 * {@link MemoryTable} (which imitates the kernel) produce the same reasons and the same words.
 * Messages name the entry first, then what went wrong, then the errno an operator can search for:
 * {@code TCP 10.16.0.1:80: dest 10.16.1.1:80: already exists (EEXIST)}.
 */
public final class TableErrors {
  private TableErrors() {}

  public static final int EPERM = 1;
  public static final int ENOENT = 2;
  public static final int ESRCH = 3;
  public static final int EEXIST = 17;
  public static final int EINVAL = 22;
  public static final int ERANGE = 34;
  public static final int EAFNOSUPPORT = 97;

  /**
   * The exception for {@code op} failing with {@code errno}; {@code detail} is kernel text or
   * empty.
   */
  public static TableException of(int errno, TableOp op, String detail) {
    String what = describe(errno, op);
    String extra = detail == null || detail.isEmpty() ? "" : " [" + detail + "]";
    return new TableException(
        reason(errno), errno, subject(op) + ": " + what + " (" + name(errno) + ")" + extra);
  }

  /** The reason for an errno. */
  public static TableException.Reason reason(int errno) {
    return switch (errno) {
      case EEXIST -> TableException.Reason.EXISTS;
      case ENOENT -> TableException.Reason.NOT_FOUND;
      case ESRCH -> TableException.Reason.NO_SERVICE;
      case ERANGE -> TableException.Reason.RANGE;
      case EINVAL, EAFNOSUPPORT -> TableException.Reason.INVALID;
      case EPERM -> TableException.Reason.PERMISSION;
      default -> TableException.Reason.OTHER;
    };
  }

  /**
   * What the operation was about: {@code TCP 10.0.0.1:80} or {@code TCP 10.0.0.1:80: dest
   * 10.1.1.1:80}.
   */
  public static String subject(TableOp op) {
    if (op instanceof TableOp.AddService a) {
      return a.service().key().toString();
    } else if (op instanceof TableOp.SetService s) {
      return s.service().key().toString();
    } else if (op instanceof TableOp.DelService d) {
      return d.key().toString();
    } else if (op instanceof TableOp.AddDest a) {
      return a.service() + ": dest " + a.dest().key();
    } else if (op instanceof TableOp.SetDest s) {
      return s.service() + ": dest " + s.dest().key();
    } else if (op instanceof TableOp.DelDest d) {
      return d.service() + ": dest " + d.dest();
    }
    return "flush";
  }

  private static String describe(int errno, TableOp op) {
    boolean destOp =
        op instanceof TableOp.AddDest
            || op instanceof TableOp.SetDest
            || op instanceof TableOp.DelDest;
    return switch (errno) {
      case EEXIST -> "already exists";
      case ESRCH -> "no such service";
      case ENOENT -> destOp ? "no such destination" : notFound(op);
      case ERANGE -> outOfRange(op);
      case EINVAL ->
          destOp
              ? "refused: the address is not unicast, its family differs from the service's"
                  + " without tunnelling, or the request is malformed"
              : "refused: malformed request (an IPv6 persistence prefix must be 1..128)";
      case EAFNOSUPPORT -> "address family not supported";
      case EPERM -> "permission denied: changing IPVS needs CAP_NET_ADMIN";
      default -> "failed";
    };
  }

  private static String notFound(TableOp op) {
    Service s =
        op instanceof TableOp.AddService a
            ? a.service()
            : op instanceof TableOp.SetService e ? e.service() : null;
    if (s != null) {
      return "unknown scheduler \""
          + s.scheduler()
          + "\""
          + (s.persistenceEngine() != null
              ? " or persistence engine \"" + s.persistenceEngine() + "\""
              : "")
          + " (is its ip_vs_* module available?)";
    }
    return "not found";
  }

  private static String outOfRange(TableOp op) {
    Dest d =
        op instanceof TableOp.AddDest a
            ? a.dest()
            : op instanceof TableOp.SetDest e ? e.dest() : null;
    if (d != null && d.lowerThreshold() > d.upperThreshold()) {
      return "lower threshold "
          + d.lowerThreshold()
          + " is above upper threshold "
          + d.upperThreshold();
    }
    return "weight or threshold out of range";
  }

  static String name(int errno) {
    return switch (errno) {
      case EPERM -> "EPERM";
      case ENOENT -> "ENOENT";
      case ESRCH -> "ESRCH";
      case EEXIST -> "EEXIST";
      case EINVAL -> "EINVAL";
      case ERANGE -> "ERANGE";
      case EAFNOSUPPORT -> "EAFNOSUPPORT";
      case 12 -> "ENOMEM";
      case 16 -> "EBUSY";
      case 95 -> "EOPNOTSUPP";
      case 105 -> "ENOBUFS";
      case -1 -> "no ack";
      default -> "errno " + errno;
    };
  }
}
