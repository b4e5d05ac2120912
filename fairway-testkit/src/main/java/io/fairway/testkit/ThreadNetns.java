package io.fairway.testkit;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;

/**
 * Puts the calling thread into a network namespace made by {@code ip netns add}, and takes
 * capabilities from it: the kernel scopes both per thread, so a test runs its body on a thread of
 * its own and nothing else in the JVM moves.
 */
public final class ThreadNetns {
  private static final int CLONE_NEWNET = 0x40000000;
  private static final int CAPABILITY_VERSION_3 = 0x20080522;
  private static final int CAP_NET_ADMIN = 12;

  private ThreadNetns() {}

  /**
   * The libc calls of test set-up that Fairway itself never makes; kept here, not in fairway-os's
   * binding, which holds what the daemon calls.
   */
  private static final class Calls {
    static {
      Native.register(NativeLibrary.getInstance("c"));
    }

    private Calls() {}

    static native int open(String path, int flags);

    static native int setns(int fd, int nstype);

    static native int close(int fd);

    static native int capget(int[] header, int[] data);

    static native int capset(int[] header, int[] data);
  }

  /**
   * Moves the calling thread into namespace {@code name} ({@code /run/netns/name}).
   *
   * @throws IllegalStateException the namespace does not exist or cannot be entered
   */
  public static void enter(String name) {
    int fd = Calls.open("/run/netns/" + name, 0);
    if (fd < 0) {
      throw new IllegalStateException("cannot open network namespace " + name);
    }
    try {
      if (Calls.setns(fd, CLONE_NEWNET) != 0) {
        throw new IllegalStateException("cannot enter network namespace " + name);
      }
    } finally {
      Calls.close(fd);
    }
  }

  /** Takes CAP_NET_ADMIN out of the calling thread's effective set (it stays permitted). */
  public static void dropNetAdmin() {
    int[] header = {CAPABILITY_VERSION_3, 0};
    int[] data = new int[6]; // effective, permitted, inheritable; twice
    if (Calls.capget(header, data) != 0) {
      throw new IllegalStateException("capget failed");
    }
    data[0] &= ~(1 << CAP_NET_ADMIN);
    if (Calls.capset(header, data) != 0) {
      throw new IllegalStateException("capset failed");
    }
  }
}
