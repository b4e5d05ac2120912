package io.fairway.bench.config;

import io.fairway.config.KeepalivedConfig;
import io.fairway.config.ParseOptions;
import io.fairway.config.ParseResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * How long loading a large keepalived.conf takes: a file with {@code realServers} real servers (100
 * per virtual server, each with a TCP_CHECK or an HTTP_GET), read from disk and turned into the
 * model. The target is under one second for 10,000 real servers, so a reload of a big installation
 * is not held up by parsing.
 *
 * <p>{@code java -jar fairway-bench/target/benchmarks.jar ConfigParseBenchmark}
 */
@State(Scope.Benchmark)
@BenchmarkMode({Mode.SingleShotTime, Mode.AverageTime})
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 5)
@Measurement(iterations = 10)
@Fork(1)
public class ConfigParseBenchmark {

  @Param({"10000"})
  public int realServers;

  private Path file;
  private final ParseOptions options = new ParseOptions("bench", Map.of());

  @Setup(Level.Trial)
  public void write() throws IOException {
    file = Files.createTempFile("fairway-bench", ".conf");
    Files.writeString(file, generate(realServers));
  }

  @TearDown(Level.Trial)
  public void delete() throws IOException {
    Files.deleteIfExists(file);
  }

  @Benchmark
  public ParseResult parse() {
    return KeepalivedConfig.parse(file, options);
  }

  /** A keepalived.conf with {@code n} real servers, 100 per virtual server. */
  public static String generate(int n) {
    StringBuilder sb = new StringBuilder(n * 200);
    sb.append("global_defs {\n    router_id BENCH\n}\n");
    int perVs = 100;
    for (int v = 0; v * perVs < n; v++) {
      sb.append("virtual_server 10.")
          .append(v / 250)
          .append('.')
          .append(v % 250)
          .append(".1 80 {\n")
          .append("    delay_loop 5\n    lb_algo wlc\n    lb_kind NAT\n    protocol TCP\n");
      for (int i = 0; i < perVs && v * perVs + i < n; i++) {
        int k = v * perVs + i;
        sb.append("    real_server 172.")
            .append(16 + (k >> 16 & 0x0f))
            .append('.')
            .append(k >> 8 & 0xff)
            .append('.')
            .append(k & 0xff)
            .append(" 8080 {\n        weight ")
            .append(1 + k % 10)
            .append('\n');
        if (k % 2 == 0) {
          sb.append("        TCP_CHECK {\n            connect_timeout 3\n        }\n");
        } else {
          sb.append("        HTTP_GET {\n            url {\n                path /health\n")
              .append("                status_code 200\n            }\n")
              .append("            retry 2\n        }\n");
        }
        sb.append("    }\n");
      }
      sb.append("}\n");
    }
    return sb.toString();
  }

  /**
   * Cold and warm measurement without JMH, reporting thread CPU time next to wall time (on a loaded
   * machine the wall time mostly measures the neighbours): {@code java -cp
   * fairway-bench/target/benchmarks.jar io.fairway.bench.config.ConfigParseBenchmark 10000 15}.
   */
  public static void main(String[] args) throws IOException {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
    Path f = Files.createTempFile("fairway-bench", ".conf");
    try {
      Files.writeString(f, generate(n));
      ParseOptions o = new ParseOptions("bench", Map.of());
      java.lang.management.ThreadMXBean mx =
          java.lang.management.ManagementFactory.getThreadMXBean();
      long c0 = mx.getCurrentThreadCpuTime();
      long t0 = System.nanoTime();
      ParseResult r = KeepalivedConfig.parse(f, o);
      long t1 = System.nanoTime();
      long c1 = mx.getCurrentThreadCpuTime();
      // CPU time too: on a shared machine the wall time mostly measures the neighbours.
      System.out.printf(
          "cold parse of %d real servers (%d bytes): %.1f ms wall, %.1f ms cpu,"
              + " %d virtual servers%n",
          n, Files.size(f), (t1 - t0) / 1e6, (c1 - c0) / 1e6, r.config().virtualServers().size());
      int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 15;
      long[] cpu = new long[rounds];
      long[] wall = new long[rounds];
      for (int i = 0; i < rounds; i++) {
        long w0 = System.nanoTime();
        long u0 = mx.getCurrentThreadCpuTime();
        KeepalivedConfig.parse(f, o);
        cpu[i] = mx.getCurrentThreadCpuTime() - u0;
        wall[i] = System.nanoTime() - w0;
      }
      java.util.Arrays.sort(cpu);
      java.util.Arrays.sort(wall);
      System.out.printf(
          "warm parse (%d rounds): median %.1f ms cpu (min %.1f), median %.1f ms wall"
              + " (min %.1f)%n",
          rounds, cpu[rounds / 2] / 1e6, cpu[0] / 1e6, wall[rounds / 2] / 1e6, wall[0] / 1e6);
    } catch (UncheckedIOException e) {
      throw e.getCause();
    } finally {
      Files.deleteIfExists(f);
    }
  }
}
