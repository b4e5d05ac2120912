package io.fairway.config;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * keepalived's {@code include}: each word a glob(3) pattern relative to the including file's
 * directory, the matching files read in place in sorted order, every read charged to the budget and
 * the nesting bounded.
 *
 * <p>Why apart: this is the preprocessor's only contact with the file system, and the one place
 * where an error (an unreadable file, a pattern that matches nothing) must not stop the rest of the
 * configuration from being checked.
 */
final class Includes {
  private static final int MAX_INCLUDE_DEPTH = 32;

  /** Reads an included file's text in place, as the top-level file's. */
  @FunctionalInterface
  interface Reader {
    void readText(String text, String displayName, Path baseDir);
  }

  private final Diagnostics diags;
  private final BudgetGuard guard;
  private final Definitions definitions;
  private final Reader reader;
  private int includeDepth;

  Includes(Diagnostics diags, BudgetGuard guard, Definitions definitions, Reader reader) {
    this.diags = diags;
    this.guard = guard;
    this.definitions = definitions;
    this.reader = reader;
  }

  /**
   * The file's text, or null when it has more bytes than the budget has left. Reads at most one
   * byte past what is left, so a huge file, {@code /dev/zero} or a fifo cannot fill the heap.
   */
  @Nullable String readFile(Path file, boolean included) throws IOException {
    if (Files.isDirectory(file)) {
      throw new IOException("is a directory");
    }
    Budget budget = guard.budget();
    long left = budget.inputLeft();
    byte[] bytes;
    try (InputStream in = Files.newInputStream(file)) {
      bytes = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, left + 1));
    }
    if (budget.chargeInput(bytes.length, included) != null) {
      return null;
    }
    return LineText.decode(bytes);
  }

  /** The include line {@code text}, split into {@code words}, of {@code file}. */
  void include(String[] words, String text, String file, int lineNo, Path baseDir) {
    if (words.length < 2) {
      diags.error(file, lineNo, "include needs a file name or pattern", text);
      return;
    }
    if (includeDepth >= MAX_INCLUDE_DEPTH) {
      diags.error(
          file,
          lineNo,
          "includes nested more than " + MAX_INCLUDE_DEPTH + " deep (does a file include itself?)",
          text);
      return;
    }
    for (int w = 1; w < words.length; w++) {
      if (!includePattern(words[w], text, file, lineNo, baseDir)) {
        return;
      }
    }
  }

  /** The files one include pattern matches, in order; false when reading must stop. */
  private boolean includePattern(
      String pattern, String text, String file, int lineNo, Path baseDir) {
    List<Path> matches;
    try {
      matches = glob(baseDir, pattern);
    } catch (InvalidPathException
        | IOException
        | SecurityException
        | java.util.regex.PatternSyntaxException e) {
      diags.error(
          file, lineNo, "bad include pattern '" + pattern + "': " + FileErrors.why(e), text);
      return true;
    }
    if (matches.isEmpty()) {
      diags.error(file, lineNo, "include: no file matches '" + pattern + "'", text);
      return true;
    }
    for (Path p : matches) {
      if (!Files.isRegularFile(p)) {
        diags.error(file, lineNo, "include: '" + p + "' is not a regular file", text);
        continue;
      }
      if (!includeFile(p, pattern, text, file, lineNo)) {
        return false;
      }
    }
    return true;
  }

  /** Reads one included file in place; false when the budget is spent. */
  private boolean includeFile(Path p, String pattern, String text, String file, int lineNo) {
    String shown = displayName(p);
    BudgetGuard.Construct here =
        new BudgetGuard.Construct(file, lineNo, "include " + pattern, text);
    String content;
    try {
      guard.enter(here);
      content = readFile(p, true);
      if (content == null) {
        guard.over(guard.budget().chargeInput(0, true), file, lineNo, text);
        return false;
      }
    } catch (IOException | SecurityException e) {
      diags.error(file, lineNo, "include: cannot read '" + p + "': " + FileErrors.why(e), text);
      return true;
    } finally {
      guard.leave();
    }
    Path dir =
        Objects.requireNonNull(
            p.toAbsolutePath().getParent(), "a file that could be read has a directory");
    definitions.directory(shown, dir.toString());
    includeDepth++;
    try {
      guard.within(here, () -> reader.readText(content, shown, dir));
    } finally {
      includeDepth--;
    }
    return !guard.exceeded();
  }

  private static String displayName(Path p) {
    Path cwd = Path.of("").toAbsolutePath();
    Path abs = p.toAbsolutePath().normalize();
    return abs.startsWith(cwd) ? cwd.relativize(abs).toString() : abs.toString();
  }

  /** glob(3) with braces, relative to the including file's directory, results sorted. */
  static List<Path> glob(Path baseDir, String pattern) throws IOException {
    Path base = baseDir == null ? Path.of("").toAbsolutePath() : baseDir;
    Path pat = Path.of(pattern);
    Path root = pat.isAbsolute() ? pat.getRoot() : base;
    List<Path> current = List.of(root);
    for (Path component : pat) {
      String c = component.toString();
      List<Path> next = new ArrayList<>();
      for (Path dir : current) {
        matching(dir, c, next);
      }
      next.sort(null);
      current = next;
      if (current.isEmpty()) {
        break;
      }
    }
    return current;
  }

  /** Adds to {@code into} what the one path component {@code c} names in {@code dir}. */
  private static void matching(Path dir, String c, List<Path> into) throws IOException {
    boolean wild =
        c.indexOf('*') >= 0 || c.indexOf('?') >= 0 || c.indexOf('[') >= 0 || c.indexOf('{') >= 0;
    if (!wild) {
      Path p = dir.resolve(c);
      if (Files.exists(p)) {
        into.add(p);
      }
      return;
    }
    if (!Files.isDirectory(dir)) {
      return;
    }
    PathMatcher m = dir.getFileSystem().getPathMatcher("glob:" + c);
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
      for (Path p : ds) {
        String n = p.getFileName().toString();
        if (m.matches(p.getFileName()) && (!n.startsWith(".") || c.startsWith("."))) {
          into.add(p);
        }
      }
    }
  }
}
