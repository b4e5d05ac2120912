package io.fairway.check.engine;

import io.fairway.check.checker.CheckResult;
import io.fairway.check.checker.Checker;
import io.fairway.check.checker.CheckerFactory;
import io.fairway.check.spec.CheckSpec;
import io.fairway.check.spec.RealServerSpec;
import io.fairway.check.spec.VirtualServerSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * A checker factory whose checkers answer what the test says, synchronously, and record when they
 * ran. A fake for pure sequencing tests of the rules; real checkers are tested against real servers
 * elsewhere.
 */
final class ScriptedCheckers implements CheckerFactory {
  /** An answer meaning "never call back". */
  static final CheckResult NEVER = CheckResult.fail("never");

  private final Map<String, Integer> created = new HashMap<>();

  /** What the checker of one real server answers next; {@link #NEVER} = never answer. */
  final Map<String, CheckResult> answer = new HashMap<>();

  final Map<String, List<Long>> ranAt = new HashMap<>();

  /**
   * Per url (part) answers of a real server's checker; a part without one answers as {@link
   * #answer}.
   */
  final Map<String, Map<Integer, CheckResult>> partAnswer = new HashMap<>();

  /** Which part each attempt ran, in order, as {@code "<seconds>s:<part>"}. */
  final Map<String, List<String>> ranParts = new HashMap<>();

  private final EngineClock clock;

  ScriptedCheckers(EngineClock clock) {
    this.clock = clock;
  }

  void set(String rs, boolean ok) {
    answer.put(rs, ok ? CheckResult.ok("ok") : CheckResult.fail("refused"));
  }

  void set(String rs, CheckResult r) {
    answer.put(rs, r);
  }

  void set(String rs, int part, boolean ok) {
    partAnswer
        .computeIfAbsent(rs, k -> new HashMap<>())
        .put(
            part,
            ok ? CheckResult.ok("url " + part + " ok") : CheckResult.fail("url " + part + " 503"));
  }

  @Override
  public Checker create(VirtualServerSpec vs, RealServerSpec rs, CheckSpec spec) {
    int index = created.merge(rs.name(), 1, Integer::sum) - 1;
    String key = rs.checkers().size() == 1 ? rs.name() : rs.name() + "#" + index;
    answer.putIfAbsent(key, CheckResult.ok("ok"));
    return new Checker() {
      @Override
      public void check(Consumer<CheckResult> done) {
        ranAt.computeIfAbsent(key, k -> new ArrayList<>()).add(clock.nanoTime());
        CheckResult r = answer.get(key);
        // NEVER is a sentinel instance: identity, not an equal result, means "does not answer".
        @SuppressWarnings("ReferenceEquality")
        boolean answers = r != NEVER;
        if (answers) {
          done.accept(r);
        }
      }

      @Override
      public void check(int part, Consumer<CheckResult> done) {
        long now = clock.nanoTime();
        String at =
            now % 1_000_000_000L == 0
                ? Long.toString(now / 1_000_000_000L)
                : Double.toString(now / 1e9);
        ranParts.computeIfAbsent(key, k -> new ArrayList<>()).add(at + "s:" + part);
        CheckResult r = partAnswer.getOrDefault(key, Map.of()).get(part);
        if (r == null) {
          check(done);
          return;
        }
        ranAt.computeIfAbsent(key, k -> new ArrayList<>()).add(now);
        done.accept(r);
      }

      @Override
      public Duration deadline() {
        return spec.timing().connectTimeout();
      }
    };
  }
}
