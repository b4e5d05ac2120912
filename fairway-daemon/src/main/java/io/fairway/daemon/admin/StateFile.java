package io.fairway.daemon.admin;

import com.fasterxml.jackson.core.type.TypeReference;
import io.fairway.apply.AdminState;
import io.fairway.apply.ServerAdmin;
import io.fairway.daemon.Json;
import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * {@code --state-file}: the operators' admin settings, so a drained or maint server stays so across
 * a restart. Written on every change to a temporary file in the same directory, forced to disk and
 * renamed over the old one, so a crash leaves the old file or the new one, never half of either.
 */
public final class StateFile {
  private final Path file;

  public StateFile(Path file) {
    this.file = file.toAbsolutePath();
  }

  public Path path() {
    return file;
  }

  /** One entry as stored. */
  record Entry(String virtualServer, String realServer, String state, @Nullable Integer weight) {}

  record Content(int version, List<Entry> servers) {}

  /**
   * The saved settings; none when the file does not exist yet.
   *
   * @throws IOException unreadable or not a state file (the message says where)
   */
  public List<ServerAdmin> load() throws IOException {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      return List.of();
    }
    Content c;
    try {
      c = Json.mapper().readValue(bytes, new TypeReference<Content>() {});
    } catch (IOException e) {
      String m = String.valueOf(e.getMessage());
      throw new IOException(
          file + ": not a Fairway state file: " + m.lines().findFirst().orElse(m));
    }
    List<ServerAdmin> out = new ArrayList<>();
    if (c == null || c.servers() == null) {
      return out;
    }
    for (Entry e : c.servers()) {
      AdminState s;
      try {
        s = AdminState.valueOf(String.valueOf(e.state()).toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException ex) {
        throw new IOException(
            file + ": state must be none, drain or maint, got '" + e.state() + "'");
      }
      if (e.virtualServer() == null
          || e.realServer() == null
          || (e.weight() != null && e.weight() < 0)) {
        throw new IOException(
            file + ": each entry needs virtual_server, real_server and a weight >= 0 if any");
      }
      out.add(new ServerAdmin(e.virtualServer(), e.realServer(), s, e.weight()));
    }
    return out;
  }

  /** Replaces the file with these settings, atomically. */
  public synchronized void save(List<ServerAdmin> settings) throws IOException {
    List<Entry> entries =
        settings.stream()
            .map(a -> new Entry(a.virtualServer(), a.realServer(), a.state().wire(), a.weight()))
            .toList();
    byte[] bytes = Json.bytes(new Content(1, entries));
    Path dir = file.getParent();
    Files.createDirectories(dir);
    Path tmp = Files.createTempFile(dir, "." + file.getFileName(), ".tmp");
    try {
      try (var ch =
          java.nio.channels.FileChannel.open(
              tmp,
              java.nio.file.StandardOpenOption.WRITE,
              java.nio.file.StandardOpenOption.TRUNCATE_EXISTING)) {
        ch.write(java.nio.ByteBuffer.wrap(bytes));
        ch.force(true);
      }
      try {
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
      }
    } finally {
      Files.deleteIfExists(tmp);
    }
  }
}
