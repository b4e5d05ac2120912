package io.fairway.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

/**
 * The sockets this JVM has open, by inode, as {@code /proc/self/fd} lists them (Linux): tests that
 * check a socket is kept, closed or not leaked match them against {@code /proc/net/tcp}'s inodes or
 * against an earlier listing.
 */
public final class OwnSockets {
  private OwnSockets() {}

  /** The inodes of this JVM's descriptors that are sockets ({@code socket:[N]}). */
  public static Set<Long> inodes() throws IOException {
    Set<Long> out = new HashSet<>();
    try (var s = Files.list(Path.of("/proc/self/fd"))) {
      for (Path fd : (Iterable<Path>) s::iterator) {
        try {
          String target = Files.readSymbolicLink(fd).toString();
          if (target.startsWith("socket:[")) {
            out.add(Long.parseLong(target.substring(8, target.length() - 1)));
          }
        } catch (IOException gone) {
          // closed meanwhile: not a socket of interest
        }
      }
    }
    return out;
  }
}
