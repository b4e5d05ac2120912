import io.fairway.testkit.uml.Uml;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Host side of bench/check-vs-keepalived.sh: boots user-mode Linux once (the project's harness,
 * io.fairway.testkit.uml.Uml) and runs bench/check-vs-keepalived-inside.sh inside, while sampling the
 * host CPU of this UML's processes every second into RESULTS/host-cpu.tsv (epoch seconds, CPU
 * seconds), so the report can give the whole machine's cost per check beside the guest's own
 * accounting.
 *
 * <p>Arguments: RESULTS_DIR JAR JVM_OPTS ROUNDS TCP HTTP TCP_VICTIMS HTTP_VICTIMS WARM WINDOW
 * [FAIRWAY_ARGS].
 */
public class CheckVsKeepalived {
  public static void main(String[] a) throws Exception {
    if (Uml.unavailableReason().isPresent()) {
      System.err.println("cannot run: " + Uml.unavailableReason().get());
      System.exit(2);
    }
    Path results = Path.of(a[0]).toAbsolutePath();
    Path bench = Path.of("bench").toAbsolutePath();
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> words = new ArrayList<>(List.of("sh", bench + "/check-vs-keepalived-inside.sh"));
    words.add(bench.toString());
    words.add(Path.of(a[1]).toAbsolutePath().toString());
    words.add(java);
    for (int i = 2; i < a.length; i++) {
      words.add(a[i]);
    }
    int rounds = Integer.parseInt(a[3]);
    long perDaemon = 300 + Long.parseLong(a[8]) + Long.parseLong(a[9]);
    String umid = "fwchk" + ProcessHandle.current().pid();
    Uml.Running uml =
        Uml.builder()
            .command(String.join(" ", words.stream().map(Uml::quote).toList()))
            .outputDir(results)
            .memory("2G")
            .kernelArg("umid=" + umid)
            .timeout(Duration.ofSeconds(120 + 2 * rounds * perDaemon))
            .start();
    try (var tsv = Files.newBufferedWriter(results.resolve("host-cpu.tsv"))) {
      while (uml.alive()) {
        tsv.write(String.format("%.3f %.2f%n", System.currentTimeMillis() / 1000.0, cpu(umid)));
        tsv.flush();
        Thread.sleep(1000);
      }
    }
    Uml.Result r = uml.await();
    System.out.print(r.stdout());
    if (r.exitCode() != 0) {
      System.err.println(r.diagnostics());
      System.exit(1);
    }
    System.out.printf("(UML boot + runs: %d s)%n", r.took().toSeconds());
  }

  /**
   * CPU seconds of every host process of this UML: its kernel (the process whose command line
   * carries the umid) and everything below it, one process per guest address space; what exited
   * is in its parent's cutime/cstime.
   */
  static double cpu(String umid) throws IOException {
    List<ProcessHandle> uml = new ArrayList<>();
    try (var procs = Files.list(Path.of("/proc"))) {
      for (Path p : (Iterable<Path>) procs::iterator) {
        String name = p.getFileName().toString();
        if (!name.chars().allMatch(Character::isDigit)) {
          continue;
        }
        try {
          if (Files.readString(p.resolve("cmdline")).contains("umid=" + umid + "\0")) {
            ProcessHandle.of(Long.parseLong(name)).ifPresent(uml::add);
          }
        } catch (IOException gone) {
          // exited between the listing and the read
        }
      }
    }
    java.util.Set<Long> pids = new java.util.TreeSet<>();
    for (ProcessHandle h : uml) {
      pids.add(h.pid());
      h.descendants().forEach(d -> pids.add(d.pid()));
    }
    long ticks = 0;
    for (long pid : pids) {
      try {
        String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        // utime stime cutime cstime: fields 14-17 of stat, 12-15 after the state.
        ticks +=
            Long.parseLong(f[11])
                + Long.parseLong(f[12])
                + Long.parseLong(f[13])
                + Long.parseLong(f[14]);
      } catch (IOException | RuntimeException gone) {
        // exited between the listing and the read
      }
    }
    return ticks / 100.0;
  }
}
