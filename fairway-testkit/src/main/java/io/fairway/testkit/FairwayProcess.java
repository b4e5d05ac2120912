package io.fairway.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * {@code fairway ARGS} as a child process, the way an operator or systemd runs it: from this JVM's
 * test classpath ({@link #fromTestClasspath}) or an installed tree ({@link #installed}), its output
 * and errors in one log file, signalled with kill(1). Closing it kills what is still running, so a
 * failed test leaves no daemon behind.
 *
 * <pre>{@code
 * try (FairwayProcess fw = FairwayProcess.fromTestClasspath("-Xmx128m").log(dir.resolve("fw.log"))
 *     .start("run", "--userspace", "-f", conf.toString())) {
 *   fw.signal("HUP");
 *   assertThat(fw.stop(Duration.ofSeconds(30))).as(fw.log()).isZero();
 * }
 * }</pre>
 */
public final class FairwayProcess implements AutoCloseable {
  private final Process process;
  private final Path log;

  private FairwayProcess(Process process, Path log) {
    this.process = process;
    this.log = log;
  }

  /**
   * {@code java JVM_OPTIONS -cp CLASSPATH io.fairway.cli.Main}: surefire's full test classpath
   * under Maven (whose {@code java.class.path} is only its booter jar), else this JVM's.
   */
  public static Launch fromTestClasspath(String... jvmOptions) {
    String cp =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(List.of(jvmOptions));
    cmd.addAll(List.of("-cp", cp, "io.fairway.cli.Main"));
    return new Launch(cmd);
  }

  /** An installed {@code fairway} command (e.g. the Debian package's /usr/bin/fairway). */
  public static Launch installed(Path command) {
    return new Launch(List.of(command.toString()));
  }

  /** How to start one: the command, words in front of it, environment, log file. */
  public static final class Launch {
    private final List<String> command;
    private final List<String> prefix = new ArrayList<>();
    private final Map<String, String> env = new LinkedHashMap<>();

    /** Null until {@link #log(Path)}: a temp file then. */
    private @Nullable Path log;

    private Launch(List<String> command) {
      this.command = List.copyOf(command);
    }

    /** Runs the command behind these words, e.g. {@code nohup}. */
    public Launch prefix(String... words) {
      prefix.addAll(List.of(words));
      return this;
    }

    public Launch env(String name, String value) {
      env.put(name, value);
      return this;
    }

    /** Where stdout and stderr go (a temp file by default). */
    public Launch log(Path file) {
      this.log = file;
      return this;
    }

    public FairwayProcess start(String... args) throws IOException {
      List<String> cmd = new ArrayList<>(prefix);
      cmd.addAll(command);
      cmd.addAll(List.of(args));
      Path file = log != null ? log : Files.createTempFile("fairway-", ".log");
      ProcessBuilder pb =
          new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(file.toFile());
      pb.environment().putAll(env);
      return new FairwayProcess(pb.start(), file);
    }
  }

  public Process process() {
    return process;
  }

  public long pid() {
    return process.pid();
  }

  public boolean alive() {
    return process.isAlive();
  }

  /** Sends {@code SIG<name>} (e.g. "HUP") with kill(1); fails if kill does. */
  public void signal(String name) throws IOException, InterruptedException {
    int code =
        new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).start().waitFor();
    if (code != 0) {
      throw new IOException("kill -" + name + " " + process.pid() + ": exit " + code);
    }
  }

  /** What it wrote so far (stdout and stderr). */
  public String log() {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public Path logFile() {
    return log;
  }

  /**
   * SIGTERM, then waits for the exit.
   *
   * @return the exit code
   * @throws AssertionError it did not exit within {@code within} (it is killed then)
   */
  public int stop(Duration within) throws InterruptedException {
    process.destroy();
    return awaitExit(within);
  }

  /**
   * Waits for the exit.
   *
   * @return the exit code
   * @throws AssertionError it did not exit within {@code within} (it is killed then)
   */
  public int awaitExit(Duration within) throws InterruptedException {
    if (!process.waitFor(within.toMillis(), TimeUnit.MILLISECONDS)) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      throw new AssertionError("fairway did not exit within " + within + "; its log:\n" + log());
    }
    return process.exitValue();
  }

  /**
   * Kills it if it still runs. An interrupt while waiting for the kill leaves the thread
   * interrupted rather than escaping close, which try-with-resources would pair with whatever the
   * body threw.
   */
  @Override
  public void close() {
    if (process.isAlive()) {
      try {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
