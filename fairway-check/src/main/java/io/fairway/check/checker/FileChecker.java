package io.fairway.check.checker;

import io.fairway.check.CheckConfigException;
import io.fairway.check.spec.FileCheckSpec;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * FILE_CHECK / track_file: reads an integer from the file and turns it into a weight contribution
 * (see {@link FileCheckSpec}). The file is small and local, so it is read inline.
 */
final class FileChecker implements Checker {
  private final FileCheckSpec spec;

  private FileChecker(FileCheckSpec spec) {
    this.spec = spec;
  }

  static FileChecker open(FileCheckSpec spec, String where) {
    if (!Files.isRegularFile(spec.file())) {
      throw new CheckConfigException(where + ": track file " + spec.file() + " does not exist");
    }
    if (!Files.isReadable(spec.file())) {
      throw new CheckConfigException(where + ": track file " + spec.file() + " is not readable");
    }
    return new FileChecker(spec);
  }

  @Override
  public java.util.Optional<CheckResult> initial() {
    CheckResult[] r = new CheckResult[1];
    check(x -> r[0] = x);
    return java.util.Optional.of(r[0]);
  }

  @Override
  public void check(Consumer<CheckResult> done) {
    String text;
    try {
      byte[] bytes = Files.readAllBytes(spec.file());
      text = new String(bytes, 0, Math.min(bytes.length, 64), StandardCharsets.US_ASCII);
    } catch (IOException e) {
      done.accept(
          CheckResult.fail("cannot read " + spec.file() + ": " + e.getMessage())
              .withWeightDelta(0));
      return;
    }
    done.accept(evaluate(text, spec.weight(), spec.reverse()));
  }

  /** keepalived's track_file arithmetic, separate so that it is tested exhaustively. */
  static CheckResult evaluate(String text, int weight, boolean reverse) {
    String token = text.strip().split("\\s+", 2)[0];
    long value;
    try {
      value = token.isEmpty() ? 0 : parseC(token);
    } catch (NumberFormatException e) {
      return CheckResult.fail("value \"" + token + "\" is not an integer").withWeightDelta(0);
    }
    if (weight == 0) {
      return value == 0
          ? CheckResult.ok("value 0").withWeightDelta(0)
          : CheckResult.fail("value " + value + " (weight 0: any non-zero value is a failure)")
              .withWeightDelta(0);
    }
    long status = saturatingMultiply(value, (long) weight * (reverse ? -1 : 1));
    if (status <= Integer.MIN_VALUE) {
      return CheckResult.fail(
              "value "
                  + value
                  + " x weight "
                  + weight
                  + (reverse ? " reversed" : "")
                  + " <= "
                  + Integer.MIN_VALUE
                  + ": fault")
          .withWeightDelta(0);
    }
    status = Math.min(status, Integer.MAX_VALUE);
    return CheckResult.ok("value " + value + ": weight " + (status >= 0 ? "+" : "") + status)
        .withWeightDelta(status);
  }

  /** {@code strtol(s, NULL, 0)}: decimal, 0x hex or leading-0 octal, with an optional sign. */
  static long parseC(String s) {
    boolean neg = s.startsWith("-");
    String d = s.startsWith("-") || s.startsWith("+") ? s.substring(1) : s;
    long v;
    if (d.startsWith("0x") || d.startsWith("0X")) {
      v = Long.parseLong(d.substring(2), 16);
    } else if (d.length() > 1 && d.startsWith("0")) {
      v = Long.parseLong(d.substring(1), 8);
    } else {
      v = Long.parseLong(d);
    }
    return neg ? -v : v;
  }

  private static long saturatingMultiply(long a, long b) {
    long hi = Math.multiplyHigh(a, b);
    long lo = a * b;
    if ((hi == 0 && lo >= 0) || (hi == -1 && lo < 0)) {
      return lo;
    }
    return (a < 0) == (b < 0) ? Long.MAX_VALUE : Long.MIN_VALUE;
  }

  @Override
  public Duration deadline() {
    return Duration.ofSeconds(5);
  }
}
