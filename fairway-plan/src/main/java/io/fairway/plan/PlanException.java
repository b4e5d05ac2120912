package io.fairway.plan;

import java.util.List;

/** A configuration that parses but cannot be planned; each message is {@code FILE:LINE: ...}. */
public final class PlanException extends Exception {
  private static final long serialVersionUID = 1L;

  private final List<String> errors;

  public PlanException(List<String> errors) {
    super(String.join("\n", errors));
    this.errors = List.copyOf(errors);
  }

  /** One line per problem. */
  public List<String> errors() {
    return errors;
  }
}
