package io.fairway.vrrp.io;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The capabilities VRRP needs, read from the process's effective set ({@code CapEff} in {@code
 * /proc/self/status}): {@code CAP_NET_RAW} for the raw and AF_PACKET sockets, {@code CAP_NET_ADMIN}
 * for the addresses. A run that started without VRRP may not have them (the userspace unit has no
 * CAP_NET_ADMIN), and a reload that adds VRRP must say so before anything changes: without
 * CAP_NET_ADMIN the sockets open and the failure would come only when the instance becomes master
 * and cannot add its addresses.
 */
public final class Capabilities {
  /** linux/capability.h. */
  static final int CAP_NET_ADMIN = 12;

  static final int CAP_NET_RAW = 13;

  private Capabilities() {}

  /** The names of the capabilities VRRP needs that this process does not have; empty if unknown. */
  public static List<String> missingForVrrp() {
    String status;
    try {
      status = Files.readString(Path.of("/proc/self/status"));
    } catch (IOException | SecurityException e) {
      return List.of(); // no /proc: the sockets and the first address change will say
    }
    return missing(status);
  }

  /** The same, from the text of a {@code /proc/PID/status}. */
  static List<String> missing(String procStatus) {
    for (String line : procStatus.split("\n")) {
      if (line.startsWith("CapEff:")) {
        long eff;
        try {
          eff = Long.parseUnsignedLong(line.substring("CapEff:".length()).trim(), 16);
        } catch (NumberFormatException e) {
          return List.of();
        }
        List<String> out = new ArrayList<>();
        if ((eff & (1L << CAP_NET_ADMIN)) == 0) {
          out.add("CAP_NET_ADMIN");
        }
        if ((eff & (1L << CAP_NET_RAW)) == 0) {
          out.add("CAP_NET_RAW");
        }
        return out;
      }
    }
    return List.of();
  }
}
