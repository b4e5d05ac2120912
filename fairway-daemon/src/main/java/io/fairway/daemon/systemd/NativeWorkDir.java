package io.fairway.daemon.systemd;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

/**
 * Where JNA and Netty unpack their shared libraries. JNA writes its own into the user's cache
 * directory or else the temp directory, Netty its transports into the temp directory, and both load
 * them from there, which fails where neither is writable: a read-only root, or a hardened unit
 * ({@code ProtectSystem=strict}, {@code ProtectHome}). systemd's {@code RuntimeDirectory=} gives
 * the service a writable, executable directory in {@code $RUNTIME_DIRECTORY}; Fairway uses it for
 * both unless the operator chose a place.
 *
 * <p>Debian's {@code libjna-jni} is no way out: JNA refuses a native library of another version
 * than its jar, and Debian's is older than the 5.19.1 Fairway ships.
 */
public final class NativeWorkDir {
  static final String JNA = "jna.tmpdir";
  static final String NETTY = "io.netty.native.workdir";

  private NativeWorkDir() {}

  /**
   * Points JNA and Netty at the runtime directory when there is one and the operator set neither
   * property. Call before the first JNA or Netty class loads.
   *
   * @return the directory chosen, if any
   */
  public static Optional<String> configure(Map<String, String> env, Properties properties) {
    String runtime = env.get("RUNTIME_DIRECTORY");
    if (runtime == null || runtime.isBlank()) {
      return Optional.empty();
    }
    // systemd separates several RuntimeDirectory= entries with ':'; the first is Fairway's own.
    String dir = runtime.split(":", 2)[0];
    properties.putIfAbsent(JNA, dir);
    properties.putIfAbsent(NETTY, dir);
    return Optional.of(dir);
  }

  /** {@link #configure} for this process. */
  public static void configure() {
    configure(System.getenv(), System.getProperties());
  }

  /**
   * Loads JNA's native library now, so that its failure is one line that says what it needs rather
   * than "Could not initialize class com.sun.jna.Native" at first use.
   *
   * @return empty when JNA works, else that line
   */
  public static Optional<String> checkJna() {
    // JNA logs the failure itself with a stack trace (java.util.logging): the line below says it.
    java.util.logging.Logger jnaLog = java.util.logging.Logger.getLogger("com.sun.jna.Native");
    java.util.logging.Level level = jnaLog.getLevel();
    jnaLog.setLevel(java.util.logging.Level.OFF);
    try {
      Class.forName("com.sun.jna.Native", true, NativeWorkDir.class.getClassLoader());
      return Optional.empty();
    } catch (ClassNotFoundException | LinkageError e) {
      return Optional.of(explain(e));
    } finally {
      jnaLog.setLevel(level);
    }
  }

  static String explain(Throwable e) {
    Throwable cause = e;
    while (cause.getCause() != null) {
      cause = cause.getCause();
    }
    String dir = System.getProperty(JNA);
    String tmp = System.getProperty("java.io.tmpdir");
    // JNA's own order: jna.tmpdir, else the user's cache directory, else java.io.tmpdir.
    String where =
        dir != null
            ? JNA + "=" + dir
            : "$XDG_CACHE_HOME/JNA/temp (~/.cache/JNA/temp) or else the temp directory "
                + tmp
                + (Files.isWritable(Path.of(tmp)) ? "" : " (not writable)");
    return "cannot load JNA's native library ("
        + cause.getMessage()
        + "): JNA unpacks it into "
        + where
        + ", which must be writable and not mounted noexec; under systemd set "
        + "RuntimeDirectory= (Fairway then uses $RUNTIME_DIRECTORY), otherwise set "
        + "RUNTIME_DIRECTORY=DIR or pass -Djna.tmpdir=DIR (FAIRWAY_JAVA_OPTS)";
  }
}
