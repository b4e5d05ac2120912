package io.fairway.check.checker;

import io.fairway.check.spec.CheckSpec;
import io.fairway.check.spec.RealServerSpec;
import io.fairway.check.spec.VirtualServerSpec;
import io.fairway.os.script.ScriptExecutor;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Runs one attempt of a real checker and waits for its result. */
final class CheckerHarness implements AutoCloseable {
  final ScriptExecutor scripts = new ScriptExecutor(2, 16);
  final NetworkCheckers checkers = new NetworkCheckers(1, scripts);

  Checker create(CheckSpec spec, int weight) {
    RealServerSpec rs = new RealServerSpec("rs", weight, List.of(spec), null, null);
    return checkers.create(VirtualServerSpec.of("vs", List.of(rs), 1, 0), rs, spec);
  }

  CheckResult once(CheckSpec spec) throws Exception {
    return once(create(spec, 1));
  }

  static CheckResult once(Checker c) throws Exception {
    CompletableFuture<CheckResult> f = new CompletableFuture<>();
    c.check(f::complete);
    return f.get(c.deadline().toMillis() + 5000, TimeUnit.MILLISECONDS);
  }

  @Override
  public void close() {
    checkers.close();
    scripts.close();
  }
}
