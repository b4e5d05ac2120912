package io.fairway.os;

/** Linux errno names, for messages an operator can search for. */
public final class Errno {
  private Errno() {}

  public static final int EPERM = 1;
  public static final int ENOENT = 2;
  public static final int ESRCH = 3;
  public static final int EINTR = 4;
  public static final int EAGAIN = 11;
  public static final int ENOMEM = 12;
  public static final int EBUSY = 16;
  public static final int EEXIST = 17;
  public static final int EINVAL = 22;
  public static final int ERANGE = 34;
  public static final int EOPNOTSUPP = 95;
  public static final int EAFNOSUPPORT = 97;
  public static final int ENOBUFS = 105;
  public static final int EPROTONOSUPPORT = 93;
  public static final int ENOTSUP = EOPNOTSUPP;

  /** {@code EEXIST}, or {@code errno 123} for one without a name here. */
  public static String name(int errno) {
    return switch (errno) {
      case EPERM -> "EPERM";
      case ENOENT -> "ENOENT";
      case ESRCH -> "ESRCH";
      case EINTR -> "EINTR";
      case EAGAIN -> "EAGAIN";
      case ENOMEM -> "ENOMEM";
      case EBUSY -> "EBUSY";
      case EEXIST -> "EEXIST";
      case EINVAL -> "EINVAL";
      case ERANGE -> "ERANGE";
      case EOPNOTSUPP -> "EOPNOTSUPP";
      case EAFNOSUPPORT -> "EAFNOSUPPORT";
      case EPROTONOSUPPORT -> "EPROTONOSUPPORT";
      case ENOBUFS -> "ENOBUFS";
      default -> "errno " + errno;
    };
  }
}
