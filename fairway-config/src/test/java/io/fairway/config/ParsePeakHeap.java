package io.fairway.config;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Path;

/**
 * Parses one file in this JVM and prints one line: {@code loaded N virtual servers} or the first
 * error, then {@code peak heap: N MB} (the sum of the heap pools' peaks). {@link BombTest} runs it
 * in a child JVM with a small {@code -Xmx}; bench/config-bombs.sh runs it by hand.
 */
public final class ParsePeakHeap {
  private ParsePeakHeap() {}

  public static void main(String[] args) {
    long start = System.nanoTime();
    String result;
    try {
      ParseResult r =
          KeepalivedConfig.parse(Path.of(args[0]), new ParseOptions("bomb", java.util.Map.of()));
      result = "loaded " + r.config().virtualServers().size() + " virtual servers";
    } catch (ConfigException e) {
      result = e.errors().get(0).format() + " [" + e.errors().size() + " errors]";
    }
    long peak = 0;
    for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
      if (p.getType() == MemoryType.HEAP) {
        peak += p.getPeakUsage().getUsed();
      }
    }
    System.out.println(result);
    System.out.printf(
        "peak heap: %d MB, %d ms%n", peak >> 20, (System.nanoTime() - start) / 1_000_000);
  }
}
