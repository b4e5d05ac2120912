package io.fairway.config.model.vrrp;

/** The configured initial state of an instance ({@code state MASTER|BACKUP}). */
public enum VrrpState {
  MASTER,
  BACKUP
}
