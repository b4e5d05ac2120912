package io.fairway.director.sched;

import java.net.InetAddress;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The part of a new connection a scheduler may look at: who connects (source hashing, persistence)
 * and where to (destination hashing; for a fwmark service that is the packet's own destination
 * address).
 *
 * <p>The kernel's address folds are computed once here so that scheduling itself allocates nothing.
 */
public final class Flow {
  private final InetAddress client;
  private final int clientPort;
  private final @Nullable InetAddress destination;
  private final int destinationPort;
  private final int clientFold;
  private final int destinationFold;

  public Flow(
      InetAddress client, int clientPort, @Nullable InetAddress destination, int destinationPort) {
    this.client = Objects.requireNonNull(client, "client");
    this.clientPort = checkPort(clientPort);
    this.destination = destination;
    this.destinationPort = checkPort(destinationPort);
    this.clientFold = AddressFold.fold(client);
    this.destinationFold = destination == null ? 0 : AddressFold.fold(destination);
  }

  /** A flow from {@code client:clientPort} to an unspecified virtual address. */
  public static Flow fromClient(InetAddress client, int clientPort) {
    return new Flow(client, clientPort, null, 0);
  }

  private static int checkPort(int p) {
    if (p < 0 || p > 65535)
      throw new IllegalArgumentException("port " + p + " is out of range 0..65535");
    return p;
  }

  public InetAddress client() {
    return client;
  }

  public int clientPort() {
    return clientPort;
  }

  public @Nullable InetAddress destination() {
    return destination;
  }

  public int destinationPort() {
    return destinationPort;
  }

  int clientFold() {
    return clientFold;
  }

  int destinationFold() {
    return destinationFold;
  }

  @Override
  public String toString() {
    return DestSpec.defaultName(client, clientPort)
        + " -> "
        + (destination == null ? "*" : DestSpec.defaultName(destination, destinationPort));
  }
}
