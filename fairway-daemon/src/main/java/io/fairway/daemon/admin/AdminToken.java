package io.fairway.daemon.admin;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Map;
import java.util.Set;

/**
 * The bearer token every mutation carries: read from {@code --admin-token-file}, or generated at
 * start into a 0600 file in the runtime directory where {@code fairway server ...} finds it.
 *
 * <p>Comparison hashes both sides first and compares the digests with {@link
 * MessageDigest#isEqual}, so neither the content nor the length of the token leaks through timing.
 */
public final class AdminToken {
  private static final int MAX_BYTES = 4096;

  private final byte[] digest;
  private final Path file;

  private AdminToken(String token, Path file) {
    this.digest = sha256(token);
    this.file = file;
  }

  /** The file the token came from or was written to. */
  public Path file() {
    return file;
  }

  /**
   * Reads a token file: its content, trailing whitespace removed.
   *
   * @throws IOException unreadable, empty or larger than 4 KiB (the message says which)
   */
  public static AdminToken read(Path file) throws IOException {
    String t = readToken(file);
    return new AdminToken(t, file);
  }

  /** The token text of a file, for the CLI. */
  public static String readToken(Path file) throws IOException {
    if (Files.size(file) > MAX_BYTES) {
      throw new IOException(file + ": a token file must be at most " + MAX_BYTES + " bytes");
    }
    String t = Files.readString(file, StandardCharsets.UTF_8).strip();
    if (t.isEmpty() || t.chars().anyMatch(c -> c <= ' ' || c > '~')) {
      throw new IOException(file + ": the token must be one line of printable ASCII");
    }
    return t;
  }

  /** Generates a random token into {@code file} (mode 0600, written atomically). */
  public static AdminToken generate(Path file) throws IOException {
    byte[] raw = new byte[32];
    new SecureRandom().nextBytes(raw);
    String token = HexFormat.of().formatHex(raw);
    Path dir = file.toAbsolutePath().getParent();
    Files.createDirectories(
        dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    Path tmp =
        Files.createTempFile(
            dir,
            ".admin-token",
            ".tmp",
            PosixFilePermissions.asFileAttribute(
                Set.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE)));
    try {
      Files.writeString(tmp, token + "\n", StandardCharsets.US_ASCII);
      try {
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
      }
    } finally {
      Files.deleteIfExists(tmp);
    }
    return new AdminToken(token, file);
  }

  /** Whether an {@code Authorization} header value carries this token, in constant time. */
  public boolean accepts(String authorization) {
    if (authorization == null || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return false;
    }
    return MessageDigest.isEqual(digest, sha256(authorization.substring(7).strip()));
  }

  /**
   * Where Fairway keeps runtime files: {@code $FAIRWAY_RUNTIME_DIR}, systemd's {@code
   * $RUNTIME_DIRECTORY}, {@code $XDG_RUNTIME_DIR/fairway}, else {@code /tmp/fairway-USER}.
   */
  public static Path runtimeDir(Map<String, String> env) {
    String d = env.get("FAIRWAY_RUNTIME_DIR");
    if (d != null && !d.isBlank()) {
      return Path.of(d);
    }
    d = env.get("RUNTIME_DIRECTORY");
    if (d != null && !d.isBlank()) {
      return Path.of(d.split(":")[0]);
    }
    d = env.get("XDG_RUNTIME_DIR");
    if (d != null && !d.isBlank()) {
      return Path.of(d, "fairway");
    }
    return Path.of(
        System.getProperty("java.io.tmpdir"), "fairway-" + System.getProperty("user.name"));
  }

  /** The generated token's file for an admin port, where the CLI looks when given no file. */
  public static Path defaultFile(Map<String, String> env, int port) {
    return runtimeDir(env).resolve("admin-" + port + ".token");
  }

  /** Whether a file is readable by anyone but its owner (a token there is not a secret). */
  public static boolean tooOpen(Path file) throws IOException {
    Set<PosixFilePermission> p = Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS);
    return p.contains(PosixFilePermission.GROUP_READ)
        || p.contains(PosixFilePermission.OTHERS_READ);
  }

  private static byte[] sha256(String s) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
