package io.fairway.config;

import java.util.ArrayDeque;
import org.jspecify.annotations.Nullable;

/**
 * The preprocessor's {@link Budget} with the constructs (includes, definitions, repeaters) being
 * expanded, outermost first, so that running out of budget is one error at the line the operator
 * wrote rather than at whichever generated line happened to cross the limit.
 *
 * <p>Why apart: every expansion (includes, {@code $NAME}, {@code ~SEQ}) charges the same budget and
 * reports the same way; each asks this guard rather than carrying the stack itself.
 */
final class BudgetGuard {

  /** What is being expanded, for the message when the budget runs out. */
  record Construct(String file, int line, String name, String text) {}

  private final Budget budget;
  private final Diagnostics diags;

  /** The includes, definitions and repeaters being expanded, outermost first. */
  private final ArrayDeque<Construct> constructs = new ArrayDeque<>();

  private boolean budgetReported;

  BudgetGuard(Budget budget, Diagnostics diags) {
    this.budget = budget;
    this.diags = diags;
  }

  Budget budget() {
    return budget;
  }

  boolean exceeded() {
    return budget.exceeded();
  }

  /**
   * True when {@code limit} (a {@link Budget} answer) says the budget ran out; the first time, one
   * error names the outermost construct being expanded (the line the operator wrote) and the limit,
   * or the current line when nothing is being expanded.
   */
  boolean over(@Nullable String limit, String file, int lineNo, String text) {
    if (limit == null) {
      return false;
    }
    if (!budgetReported) {
      budgetReported = true;
      Construct c =
          constructs.isEmpty()
              ? new Construct(file, lineNo, "the configuration", text)
              : constructs.getFirst();
      diags.error(
          c.file(),
          c.line(),
          c.name() + " goes past " + limit + " (see Limits in docs/config.md)",
          c.text());
    }
    return true;
  }

  /** Whether nothing is being expanded: the next construct entered is the outermost. */
  boolean idle() {
    return constructs.isEmpty();
  }

  /** Runs {@code body} with {@code c} as the innermost construct being expanded. */
  void within(Construct c, Runnable body) {
    enter(c);
    try {
      body.run();
    } finally {
      leave();
    }
  }

  /** Makes {@code c} the innermost construct; {@link #leave} ends it. */
  void enter(Construct c) {
    constructs.addLast(c);
  }

  void leave() {
    constructs.removeLast();
  }
}
