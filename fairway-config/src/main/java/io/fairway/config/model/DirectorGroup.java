package io.fairway.config.model;

import io.fairway.config.model.base.Location;
import java.util.List;
import java.util.Objects;

/**
 * A named director inside a virtual_server ({@code director NAME { lb_algo ... members ... }}, a
 * Fairway extension): Varnish's {@code new NAME = directors.X()} in {@code vcl_init}. Its members
 * are real servers of the same virtual_server or other directors of it, by name, so a director can
 * be a member of another (a {@code fallback} over two {@code shard}s), resolved when a request
 * comes, as Varnish's {@code resolve=LAZY}.
 *
 * @param location where the block is
 * @param name its name, unique among the virtual_server's directors and real servers
 * @param scheduler its {@code lb_algo}, one of the Varnish directors
 * @param director its parameters (its {@code shard { }}, {@code fallback { }} or {@code hash { }})
 * @param members real server or director names, in the order given
 */
public record DirectorGroup(
    Location location,
    String name,
    Scheduler scheduler,
    DirectorSpec director,
    List<String> members) {
  public DirectorGroup {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(scheduler, "scheduler");
    Objects.requireNonNull(director, "director");
    members = List.copyOf(members);
  }
}
