package io.fairway.vrrp;

import java.io.IOException;
import java.util.List;

/** The configuration does not fit the running system; one {@code FILE:LINE: message} per line. */
public final class VrrpStartException extends IOException {
  private static final long serialVersionUID = 1L;
  private final List<String> problems;

  public VrrpStartException(List<String> problems) {
    super(String.join("\n", problems));
    this.problems = List.copyOf(problems);
  }

  public List<String> problems() {
    return problems;
  }
}
