package io.fairway.vrrp.state;

/** The states of a VRRP instance; keepalived's names are the notify scripts' arguments. */
public enum State {
  INIT,
  BACKUP,
  MASTER,
  FAULT,
  STOP;

  /** The word keepalived passes to {@code notify}: MASTER, BACKUP, FAULT or STOP. */
  public String notifyName() {
    return name();
  }
}
