package io.fairway.config;

/**
 * Why a file cannot be read, in strerror(3)'s words with the errno name ({@code no such file or
 * directory (ENOENT)}), from the exception Java gives: operators know the errno names, and "cannot
 * read" alone does not say whether to create the file, fix its mode or its path.
 */
public final class FileErrors {
  private FileErrors() {}

  /** Why a file cannot be read, as strerror(3) would say it, with the errno name. */
  public static String why(Exception e) {
    if (e instanceof java.nio.file.NoSuchFileException) {
      return "no such file or directory (ENOENT)";
    }
    if (e instanceof java.nio.file.AccessDeniedException) {
      return "permission denied (EACCES)";
    }
    if (e instanceof java.nio.file.NotDirectoryException
        || (e instanceof java.nio.file.FileSystemException f
            && f.getReason() != null
            && f.getReason().contains("Not a directory"))) {
      return "a part of the path is not a directory (ENOTDIR)";
    }
    if (e instanceof java.nio.file.FileSystemException f
        && f.getReason() != null
        && f.getReason().contains("Too many levels of symbolic links")) {
      return "too many levels of symbolic links (ELOOP)";
    }
    if ("is a directory".equals(e.getMessage())
        || (e.getMessage() != null && e.getMessage().contains("Is a directory"))) {
      return "it is a directory (EISDIR)";
    }
    if (e instanceof java.nio.file.FileSystemException f && f.getReason() != null) {
      return f.getReason();
    }
    String m = e.getMessage();
    return m == null ? e.getClass().getSimpleName() : m;
  }
}
