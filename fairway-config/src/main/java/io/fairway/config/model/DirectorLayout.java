package io.fairway.config.model;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * How a virtual_server's Varnish director is layered (Fairway extensions): which members its own
 * director has, the named directors that may be members, and where a request may name its shard
 * {@code alt}.
 *
 * @param members the virtual_server director's members ({@code members ...}), real server or
 *     director names; empty means every real server in file order, as without layering
 * @param groups the {@code director NAME { }} blocks, in file order
 * @param altHeader {@code alt_header NAME}: a request header whose value (a non-negative integer)
 *     is the {@code alt} the shard director(s) choosing for that request use, as a VCL's {@code
 *     shard.backend(alt=std.integer(req.http.NAME))}
 */
public record DirectorLayout(
    List<String> members, List<DirectorGroup> groups, Optional<String> altHeader) {

  /** No layering: the director's members are the real servers; no alt header. */
  public static final DirectorLayout NONE =
      new DirectorLayout(List.of(), List.of(), Optional.empty());

  public DirectorLayout {
    members = List.copyOf(members);
    groups = List.copyOf(groups);
    Objects.requireNonNull(altHeader, "altHeader");
  }

  /** Whether the virtual_server's director has other directors among its members. */
  public boolean layered() {
    return !groups.isEmpty() || !members.isEmpty();
  }

  /** The director with this name, if any. */
  public Optional<DirectorGroup> group(String name) {
    return groups.stream().filter(g -> g.name().equals(name)).findFirst();
  }
}
