package io.fairway.os.script;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Looks users and groups up in /etc/passwd and /etc/group (local accounts, as keepalived's script
 * users are).
 */
final class Users {
  record Account(String name, int uid, int gid) {}

  private Users() {}

  static @Nullable Account lookup(String name) {
    for (String line : lines(Path.of("/etc/passwd"))) {
      String[] f = line.split(":");
      if (f.length >= 4 && (f[0].equals(name) || f[2].equals(name))) {
        return new Account(f[0], Integer.parseInt(f[2]), Integer.parseInt(f[3]));
      }
    }
    return null;
  }

  static @Nullable Integer group(String name) {
    for (String line : lines(Path.of("/etc/group"))) {
      String[] f = line.split(":");
      if (f.length >= 3 && (f[0].equals(name) || f[2].equals(name))) {
        return Integer.parseInt(f[2]);
      }
    }
    return null;
  }

  private static List<String> lines(Path p) {
    try {
      return Files.readAllLines(p);
    } catch (IOException e) {
      return List.of();
    }
  }
}
