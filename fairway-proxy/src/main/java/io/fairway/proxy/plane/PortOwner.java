package io.fairway.proxy.plane;

import io.fairway.table.Protocol;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Who holds a local port, as {@code /proc} tells it (Linux): for "address already in use", so the
 * operator reads {@code held by nginx (pid 1234)} instead of going to find out. The socket's inode
 * comes from {@code /proc/net/{tcp,tcp6,udp,udp6}}, its process from the {@code socket:[inode]}
 * links under {@code /proc/PID/fd}; a process of another user cannot be looked into without
 * privileges, and then only its uid is known. Only called after a failed bind.
 */
final class PortOwner {
  private static final Path PROC = Path.of("/proc");

  private PortOwner() {}

  /** {@code held by NAME (pid N)}, {@code held by a process of uid N}, or empty when unknown. */
  static Optional<String> describe(Protocol protocol, int port) {
    String[] files =
        protocol == Protocol.UDP ? new String[] {"udp", "udp6"} : new String[] {"tcp", "tcp6"};
    // TCP: LISTEN (0A); UDP: a bound socket is "closed" (07).
    String state = protocol == Protocol.UDP ? "07" : "0A";
    String hexPort = String.format(":%04X", port);
    for (String f : files) {
      List<String> lines;
      try {
        lines = Files.readAllLines(PROC.resolve("net").resolve(f));
      } catch (IOException | RuntimeException e) {
        continue;
      }
      for (String line : lines.subList(Math.min(1, lines.size()), lines.size())) {
        String[] c = line.trim().split("\\s+");
        if (c.length > 9 && c[1].endsWith(hexPort) && c[3].equals(state)) {
          Optional<String> who = process(c[9]);
          return Optional.of(who.orElse("held by a process of uid " + c[7]));
        }
      }
    }
    return Optional.empty();
  }

  private static Optional<String> process(String inode) {
    String link = "socket:[" + inode + "]";
    try (DirectoryStream<Path> procs =
        Files.newDirectoryStream(PROC, p -> p.getFileName().toString().matches("\\d+"))) {
      for (Path pid : procs) {
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(pid.resolve("fd"))) {
          for (Path fd : fds) {
            if (link.equals(Files.readSymbolicLink(fd).toString())) {
              String comm = Files.readString(pid.resolve("comm")).trim();
              return Optional.of("held by " + comm + " (pid " + pid.getFileName() + ")");
            }
          }
        } catch (IOException | RuntimeException e) {
          // another user's process, or gone meanwhile
        }
      }
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
    return Optional.empty();
  }
}
