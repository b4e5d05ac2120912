package io.fairway.daemon.announce;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Announcing as the operator sees it: in {@code fairway status}, {@code GET /api/v1/announce} and
 * the status page.
 *
 * @param configured whether {@code announce_table} is set
 * @param enabled {@code fairway announce on|off}
 * @param table the kernel routing table, or -1
 * @param withdrawDelaySeconds {@code announce_withdraw_delay}
 * @param addresses each announcing address and whether it is announced now
 */
public record AnnounceStatus(
    boolean configured,
    boolean enabled,
    int table,
    double withdrawDelaySeconds,
    List<Address> addresses) {

  /** One address. */
  public record Address(String address, boolean announced) {}

  public AnnounceStatus {
    addresses = List.copyOf(addresses);
  }

  /** The state now; not configured before the daemon starts. */
  public static AnnounceStatus of(@Nullable Announcing a) {
    if (a == null) {
      return new AnnounceStatus(false, true, -1, 0, List.of());
    }
    List<Address> out = new ArrayList<>();
    for (Map.Entry<String, Boolean> e : a.view().entrySet()) {
      out.add(new Address(e.getKey(), e.getValue()));
    }
    int table = a.table();
    return new AnnounceStatus(
        table >= 0,
        a.enabled(),
        table,
        a.settings().announcement().withdrawDelay().toMillis() / 1000.0,
        out);
  }

  /** The lines {@code fairway status} ends with; none when not announcing. */
  public static String text(@Nullable Announcing a) {
    AnnounceStatus s = of(a);
    if (!s.configured()) {
      return "";
    }
    StringBuilder b = new StringBuilder();
    b.append("announce: ")
        .append(s.enabled() ? "on" : "off (fairway announce off)")
        .append(", table ")
        .append(s.table())
        .append('\n');
    for (Address x : s.addresses()) {
      b.append("  ")
          .append(x.address())
          .append(x.announced() ? "  announced" : "  withdrawn")
          .append('\n');
    }
    return b.toString();
  }
}
