package io.fairway.config.model;

import io.fairway.config.model.base.Addresses;
import io.fairway.table.AddressFamily;
import io.fairway.table.Protocol;
import java.net.InetAddress;
import java.util.Objects;

/**
 * The identity of a virtual server, as keepalived matches services across a reload: an
 * address/protocol/port, a firewall mark and address family, or a virtual_server_group name (with
 * protocol, since keepalived lets a TCP and a UDP service share one group).
 *
 * <p>Two virtual servers with equal ids are the same service; anything else that differs between
 * them is a change to apply in place.
 */
public sealed interface VirtualServerId {

  /** {@code virtual_server IP PORT}. Port 0 means "any port" (persistent services only). */
  record Address(InetAddress address, Protocol protocol, int port) implements VirtualServerId {
    public Address {
      Objects.requireNonNull(address, "address");
      Objects.requireNonNull(protocol, "protocol");
    }

    public AddressFamily family() {
      return AddressFamily.of(address);
    }

    @Override
    public String toString() {
      return protocol + " " + Addresses.formatWithPort(address, port);
    }
  }

  /** {@code virtual_server fwmark N}. */
  record Fwmark(long fwmark, AddressFamily family) implements VirtualServerId {
    public Fwmark {
      Objects.requireNonNull(family, "family");
    }

    @Override
    public String toString() {
      return "fwmark " + fwmark + " " + Addresses.keyword(family);
    }
  }

  /** {@code virtual_server group NAME}. */
  record Group(String name, Protocol protocol) implements VirtualServerId {
    public Group {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(protocol, "protocol");
    }

    @Override
    public String toString() {
      return "group " + name + " " + protocol;
    }
  }
}
