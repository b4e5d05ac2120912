package io.fairway.daemon.announce;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * {@code lvs_sloppy_tcp} on the kernel plane: IPVS's {@code net.ipv4.vs.sloppy_tcp}, which lets a
 * director take up a TCP connection it did not see begin (the router moved it here), set while the
 * file asks for it and put back as it was found when it no longer does or Fairway stops.
 */
public final class SloppyTcp {
  /** Where the kernel has it (the {@code ip_vs} module loaded, in this network namespace). */
  public static final Path PROC = Path.of("/proc/sys/net/ipv4/vs/sloppy_tcp");

  private final Path file;

  /** The value before Fairway set it, or null while Fairway has not. */
  private @Nullable String found;

  public SloppyTcp(Path file) {
    this.file = file;
  }

  /**
   * Sets or puts back the sysctl as {@code lvs_sloppy_tcp} says.
   *
   * @throws IOException the sysctl cannot be read or written (the message names it)
   */
  public synchronized void apply(boolean on) throws IOException {
    if (on && found == null) {
      String now = read();
      write("1");
      found = now;
    } else if (!on) {
      restore();
    }
  }

  /** Puts back the value found before Fairway set it. */
  public synchronized void restore() throws IOException {
    if (found != null) {
      write(found);
      found = null;
    }
  }

  private String read() throws IOException {
    try {
      return Files.readString(file, StandardCharsets.US_ASCII).trim();
    } catch (IOException e) {
      throw new IOException("lvs_sloppy_tcp: cannot read " + file + ": " + why(e), e);
    }
  }

  private void write(String value) throws IOException {
    try {
      Files.writeString(file, value + "\n", StandardCharsets.US_ASCII);
    } catch (IOException e) {
      throw new IOException("lvs_sloppy_tcp: cannot write " + file + ": " + why(e), e);
    }
  }

  /** The cause in an operator's words, on one line. */
  private static String why(IOException e) {
    if (e instanceof NoSuchFileException) {
      // The directory exists only while the ip_vs module is loaded.
      return "no such file (is the ip_vs module loaded?)";
    }
    if (e instanceof AccessDeniedException) {
      return "permission denied (fairway run needs root)";
    }
    String m = e.getMessage();
    return (m == null ? e.getClass().getSimpleName() : m).replaceAll("\\s+", " ");
  }
}
