package io.fairway.config.model.vrrp;

import io.fairway.config.model.base.Location;
import java.util.List;

/**
 * {@code vrrp_sync_group NAME { group { I1 I2 ... } notify_* }}: its instances change state
 * together (one in FAULT puts all in FAULT; one becoming master takes the others along).
 *
 * @param trackScripts the group's {@code track_script} (applied to every member)
 */
public record SyncGroup(
    Location location,
    String name,
    List<String> members,
    Notify scripts,
    List<Track> trackScripts) {
  public SyncGroup {
    members = List.copyOf(members);
    trackScripts = List.copyOf(trackScripts);
  }
}
