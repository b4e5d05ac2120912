package io.fairway.testkit.uml;

import io.fairway.testkit.ExternalPrograms;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Boots a user-mode Linux kernel with IPVS, runs one command inside it, and returns what it left
 * behind. Tests use it to exercise the real kernel's IPVS without root on the host and without
 * touching the host's own table: the UML kernel is a separate machine that happens to share the
 * host's filesystem (read-only, through hostfs).
 *
 * <p>Inside, {@code init.sh} mounts proc, sysfs and a tmpfs on {@code /run}, loads {@code ip_vs}
 * and its schedulers, brings up {@code lo}, routes {@code 10.16.0.0/12} and {@code 2001:db8::/32}
 * to it (so test destinations are unicast), mounts the output directory at {@code /run/out}, runs
 * the command with stdout/stderr in {@code /run/out/stdout.txt} / {@code stderr.txt}, writes its
 * exit code to {@code /run/out/exit-code} and halts. Booting takes a few seconds and a JVM inside
 * several more (page faults are slow in UML): boot once per test class and run a whole scenario.
 *
 * <pre>{@code
 * Uml.assumeAvailable();
 * Uml.Result r = Uml.builder()
 *     .javaMain(MyScenario.class, "arg")   // runs with this JVM's test classpath
 *     .timeout(Duration.ofMinutes(3))
 *     .run();
 * assertThat(r.exitCode()).isZero();
 * String out = r.file("result.txt");       // written by the scenario to /run/out/result.txt
 * }</pre>
 */
public final class Uml {
  /** The kernel modules loaded before the command runs. */
  public static final List<String> DEFAULT_MODULES =
      List.of(
          "ip_vs",
          "ip_vs_rr",
          "ip_vs_wrr",
          "ip_vs_lc",
          "ip_vs_wlc",
          "ip_vs_lblc",
          "ip_vs_lblcr",
          "ip_vs_sh",
          "ip_vs_dh",
          "ip_vs_mh",
          "ip_vs_sed",
          "ip_vs_nq",
          "ip_vs_fo",
          "ip_vs_ovf",
          "ip_vs_pe_sip");

  /** Where the output directory is mounted inside UML. */
  public static final String OUT = "/run/out";

  /** JVM options for a JVM inside UML: small, quick to start, writable temp dirs. */
  public static final List<String> JVM_OPTIONS =
      List.of(
          "-XX:+UseSerialGC",
          "-Xmx256m",
          "-XX:TieredStopAtLevel=1",
          "-XX:-UsePerfData",
          "-Xshare:auto",
          "-Djava.io.tmpdir=/run/tmp",
          "-Djna.tmpdir=/run/tmp",
          "-Dfairway.uml=true");

  private Uml() {}

  /** The {@code linux.uml} binary, if installed. */
  public static Optional<Path> binary() {
    for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(File.pathSeparator)) {
      Path p = Path.of(dir, "linux.uml");
      if (Files.isExecutable(p)) {
        return Optional.of(p);
      }
    }
    Path p = Path.of("/usr/bin/linux.uml");
    return Files.isExecutable(p) ? Optional.of(p) : Optional.empty();
  }

  /** Why UML cannot run here, or empty when it can. */
  public static Optional<String> unavailableReason() {
    if (binary().isEmpty()) {
      return Optional.of("linux.uml not installed (apt-get install user-mode-linux)");
    }
    if (!Files.isExecutable(Path.of("/usr/bin/gcc"))) {
      return Optional.of("gcc not installed (it builds the harness's ptrace shim for linux.uml)");
    }
    try (var dirs = Files.list(Path.of("/usr/lib/uml/modules"))) {
      for (Path d : (Iterable<Path>) dirs::iterator) {
        if (!Files.isDirectory(Path.of("/lib/modules").resolve(d.getFileName()))) {
          return Optional.of(
              "/lib/modules/" + d.getFileName() + " missing: link it to " + d + " (see .ci/run)");
        }
      }
    } catch (IOException e) {
      return Optional.of("no UML kernel modules in /usr/lib/uml/modules");
    }
    return Optional.empty();
  }

  /**
   * Skips the calling test when UML cannot run here, or fails it under {@code CI=true} (see {@link
   * ExternalPrograms}).
   */
  public static void assumeAvailable() {
    Optional<String> why = unavailableReason();
    ExternalPrograms.requireThat(
        why.isEmpty(), () -> "user-mode Linux unavailable: " + why.orElse(""));
  }

  /**
   * The shared library every {@code linux.uml} this harness starts is run with ({@code
   * LD_PRELOAD}): without it UML 6.1 panics at its first process on hosts whose CPUs have AMX (see
   * {@code uml/xstate-shim.c}). Built once per source version with gcc into the temp directory;
   * concurrent builds race harmlessly (each moves a whole file into place).
   */
  public static synchronized Path xstateShim() throws IOException {
    byte[] source;
    try (var in = Uml.class.getResourceAsStream("/uml/xstate-shim.c")) {
      if (in == null) {
        throw new IOException("resource uml/xstate-shim.c is missing");
      }
      source = in.readAllBytes();
    }
    String version = Integer.toHexString(java.util.Arrays.hashCode(source));
    Path dir = Path.of(System.getProperty("java.io.tmpdir"));
    Path so = dir.resolve("fairway-uml-xstate-" + version + ".so");
    if (Files.isRegularFile(so)) {
      return so;
    }
    Path c = Files.createTempFile(dir, "fairway-uml-xstate-", ".c");
    Path tmp = Files.createTempFile(dir, "fairway-uml-xstate-", ".so.tmp");
    try {
      Files.write(c, source);
      Process gcc =
          new ProcessBuilder(
                  "gcc", "-O2", "-shared", "-fPIC", "-o", tmp.toString(), c.toString(), "-ldl")
              .redirectErrorStream(true)
              .start();
      String out = new String(gcc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!gcc.waitFor(60, TimeUnit.SECONDS) || gcc.exitValue() != 0) {
        throw new IOException("gcc could not build the UML ptrace shim: " + out.strip());
      }
      Files.move(
          tmp,
          so,
          java.nio.file.StandardCopyOption.ATOMIC_MOVE,
          java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      return so;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while building the UML ptrace shim", e);
    } finally {
      Files.deleteIfExists(c);
      Files.deleteIfExists(tmp);
    }
  }

  /** Whether this JVM runs inside a UML started by this harness. */
  public static boolean inside() {
    return Boolean.getBoolean("fairway.uml");
  }

  /**
   * The classpath of the running tests: surefire's full test classpath when run under Maven (whose
   * {@code java.class.path} is only its booter jar), else {@code java.class.path}.
   */
  public static String testClasspath() {
    String cp = System.getProperty("surefire.test.class.path");
    return cp != null && !cp.isBlank() ? cp : System.getProperty("java.class.path");
  }

  /**
   * The shell words that start {@code mainClass} in a JVM inside UML, for composing a {@link
   * Builder#command} that runs several steps (e.g. one as an unprivileged user).
   */
  public static String javaCommand(String classpath, String mainClass, String... args) {
    StringBuilder sb = new StringBuilder();
    sb.append(quote(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
    for (String o : JVM_OPTIONS) {
      sb.append(' ').append(quote(o));
    }
    sb.append(" -cp ").append(quote(classpath)).append(' ').append(quote(mainClass));
    for (String a : args) {
      sb.append(' ').append(quote(a));
    }
    return sb.toString();
  }

  /**
   * Shell commands that copy a classpath into {@code dir} inside UML (a tmpfs), and the classpath
   * of the copies. For running a JVM as an unprivileged user: the host's Maven repository usually
   * lives under {@code /root}, which such a user cannot read.
   */
  public static Staged stageClasspath(String classpath, String dir) {
    StringBuilder shell =
        new StringBuilder("mkdir -p " + quote(dir) + " && chmod 755 " + quote(dir));
    List<String> copies = new ArrayList<>();
    String[] entries = classpath.split(File.pathSeparator);
    for (int i = 0; i < entries.length; i++) {
      if (entries[i].isBlank()) {
        continue;
      }
      String target = dir + "/" + i + (entries[i].endsWith(".jar") ? ".jar" : "");
      shell.append(" && cp -r ").append(quote(entries[i])).append(' ').append(quote(target));
      copies.add(target);
    }
    shell.append(" && chmod -R a+rX ").append(quote(dir));
    return new Staged(shell.toString(), String.join(File.pathSeparator, copies));
  }

  /**
   * A classpath copied by {@link #stageClasspath}: run {@code shell} first, then use {@code
   * classpath}.
   */
  public record Staged(String shell, String classpath) {}

  public static Builder builder() {
    return new Builder();
  }

  /** Configures one boot. */
  public static final class Builder {
    private @Nullable String command;
    private Duration timeout = Duration.ofMinutes(3);
    private @Nullable Path outDir;
    private List<String> modules = DEFAULT_MODULES;
    private String memory = "1G";
    private final List<String> setup = new ArrayList<>();
    private final List<String> kernelArgs = new ArrayList<>();

    /** A shell command line to run inside (run by {@code /bin/sh -c}). */
    public Builder command(String shellCommand) {
      this.command = shellCommand;
      return this;
    }

    /**
     * Runs {@code main} in a JVM inside, with this JVM's test classpath and {@link #JVM_OPTIONS}.
     */
    public Builder javaMain(Class<?> main, String... args) {
      return javaMain(testClasspath(), main.getName(), args);
    }

    /** Runs a main class with the given classpath in a JVM inside. */
    public Builder javaMain(String classpath, String mainClass, String... args) {
      this.command = javaCommand(classpath, mainClass, args);
      return this;
    }

    /** Extra shell lines run after the standard setup, before the command. */
    public Builder setup(String shellLine) {
      setup.add(shellLine);
      return this;
    }

    public Builder timeout(Duration t) {
      this.timeout = t;
      return this;
    }

    /** Host directory for the output (mounted at {@link #OUT}); a fresh temp dir by default. */
    public Builder outputDir(Path dir) {
      this.outDir = dir;
      return this;
    }

    public Builder modules(List<String> m) {
      this.modules = List.copyOf(m);
      return this;
    }

    /**
     * An extra word on the kernel's command line, e.g. {@code eth0=daemon,,unix,/tmp/x/ctl} (a
     * network interface on a {@code uml_switch}) or {@code umid=NAME}.
     */
    public Builder kernelArg(String arg) {
      kernelArgs.add(arg);
      return this;
    }

    /** UML memory, e.g. {@code 1G}. */
    public Builder memory(String m) {
      this.memory = m;
      return this;
    }

    /** Boots, runs the command, halts. */
    public Result run() throws IOException, InterruptedException {
      return start().await();
    }

    /**
     * Boots and returns at once, for running several kernels side by side (joined by a {@code
     * uml_switch}, see {@link #kernelArg}); {@link Running#await} waits for the halt.
     */
    public Running start() throws IOException {
      String cmd = command;
      if (cmd == null) {
        throw new IllegalStateException("no command");
      }
      Path uml = binary().orElseThrow(() -> new IOException("linux.uml not installed"));
      Path out =
          outDir != null
              ? Files.createDirectories(outDir)
              : Files.createTempDirectory("fairway-uml-");
      Path work = Files.createTempDirectory("fairway-uml-init-");
      Path init = work.resolve("init.sh");
      Files.writeString(init, initScript(out, cmd), StandardCharsets.UTF_8);
      Files.setPosixFilePermissions(init, PosixFilePermissions.fromString("rwxr-xr-x"));
      Path console = out.resolve("console.txt");
      List<String> argv =
          new ArrayList<>(
              List.of(
                  uml.toString(),
                  "mem=" + memory,
                  "rootfstype=hostfs",
                  "rootflags=/",
                  "ro",
                  "init=" + init.toAbsolutePath(),
                  "con=null",
                  "con0=fd:0,fd:1"));
      argv.addAll(kernelArgs);
      ProcessBuilder pb = new ProcessBuilder(argv);
      pb.redirectInput(new File("/dev/null"));
      pb.redirectErrorStream(true);
      pb.redirectOutput(console.toFile());
      pb.environment().put("TMPDIR", work.toString());
      pb.environment().put("LD_PRELOAD", xstateShim().toString());
      long start = System.nanoTime();
      Process p = pb.start();
      return new Running(p, start, timeout, out, work);
    }

    private String initScript(Path out, String cmd) {
      StringBuilder s = new StringBuilder();
      s.append("#!/bin/sh\n");
      s.append(
          "export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/run\n");
      s.append("mount -t proc proc /proc\n");
      s.append("mount -t sysfs sysfs /sys\n");
      s.append("mount -t tmpfs tmpfs /run\n");
      s.append("mkdir -p /run/out /run/tmp && chmod 1777 /run/tmp\n");
      s.append("mount -t hostfs none /run/out -o ")
          .append(quote(out.toAbsolutePath().toString()))
          .append('\n');
      s.append("{\n");
      for (String m : modules) {
        s.append("modprobe ").append(m).append('\n');
      }
      s.append("ip link set lo up\n");
      s.append("ip route add 10.16.0.0/12 dev lo\n");
      s.append("ip -6 route add 2001:db8::/32 dev lo\n");
      for (String line : setup) {
        s.append(line).append('\n');
      }
      s.append("} > /run/out/setup.txt 2>&1\n");
      s.append("cd /run\n");
      s.append("/bin/sh -c ")
          .append(quote(cmd))
          .append(" > /run/out/stdout.txt 2> /run/out/stderr.txt\n");
      s.append("echo $? > /run/out/exit-code\n");
      s.append("sync\n");
      s.append("halt -f\n");
      return s.toString();
    }
  }

  /** A kernel booted by {@link Builder#start}. */
  public static final class Running {
    private final Process process;
    private final long start;
    private final Duration timeout;
    private final Path out;
    private final Path work;

    private Running(Process process, long start, Duration timeout, Path out, Path work) {
      this.process = process;
      this.start = start;
      this.timeout = timeout;
      this.out = out;
      this.work = work;
    }

    /** The host directory that is {@link #OUT} inside. */
    public Path outDir() {
      return out;
    }

    /** Whether the kernel still runs. */
    public boolean alive() {
      return process.isAlive();
    }

    /** Pulls the plug: every host process of this UML ends at once (a machine that dies). */
    public void kill() {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
    }

    /** Waits for the halt (at most the builder's timeout from the boot, then kills it). */
    public Result await() throws IOException, InterruptedException {
      long left = timeout.toNanos() - (System.nanoTime() - start);
      boolean finished = process.waitFor(Math.max(0, left), TimeUnit.NANOSECONDS);
      if (!finished) {
        // UML runs as several host processes; end the whole tree we started.
        kill();
        process.waitFor(10, TimeUnit.SECONDS);
      }
      Duration took = Duration.ofNanos(System.nanoTime() - start);
      deleteQuietly(work);
      Path exit = out.resolve("exit-code");
      int code = Files.exists(exit) ? Integer.parseInt(Files.readString(exit).trim()) : -1;
      return new Result(code, !finished, out, took);
    }
  }

  /**
   * What a boot left behind.
   *
   * @param exitCode the command's exit code, -1 if it never finished
   * @param timedOut whether UML was killed at the timeout
   * @param outDir the host directory that was {@code /run/out} inside
   * @param took wall time of the whole boot
   */
  public record Result(int exitCode, boolean timedOut, Path outDir, Duration took) {
    /** A file the command wrote to {@code /run/out}, or "" if it wrote none. */
    public String file(String name) {
      Path p = outDir.resolve(name);
      try {
        return Files.exists(p) ? Files.readString(p) : "";
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    public String stdout() {
      return file("stdout.txt");
    }

    public String stderr() {
      return file("stderr.txt");
    }

    /** The kernel console (boot log), for diagnosing a boot that went wrong. */
    public String console() {
      return file("console.txt");
    }

    /** A summary for assertion messages: exit code, tail of stderr and console. */
    public String diagnostics() {
      return "exit="
          + exitCode
          + " timedOut="
          + timedOut
          + " took="
          + took.toSeconds()
          + "s\n"
          + "--- stderr:\n"
          + tail(stderr(), 3000)
          + "\n--- setup:\n"
          + tail(file("setup.txt"), 1000)
          + "\n--- console:\n"
          + tail(console(), 1500);
    }

    private static String tail(String s, int n) {
      return s.length() <= n ? s : s.substring(s.length() - n);
    }
  }

  /** Single-quotes a word for /bin/sh. */
  public static String quote(String s) {
    return "'" + s.replace("'", "'\\''") + "'";
  }

  /** Deletes a previous run's output directory, so stale files cannot pass for fresh ones. */
  public static void clean(Path dir) {
    if (Files.exists(dir)) {
      deleteQuietly(dir);
    }
  }

  private static void deleteQuietly(Path dir) {
    try (var files = Files.walk(dir)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException ignored) {
      // a leftover temp dir is harmless
    }
  }
}
