package io.fairway.config.model;

/** The transport protocol of a virtual service ({@code protocol TCP|UDP|SCTP}). */
public enum Protocol {
  TCP,
  UDP,
  SCTP;

  /** The keepalived keyword value, e.g. {@code TCP}. */
  public String keyword() {
    return name();
  }
}
