package io.fairway.daemon;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.handler.codec.http.DefaultHttpContent;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * Fans events out to every {@code GET /api/v1/events} client as Server-Sent Events ({@code event:
 * KIND} and {@code data: JSON}, one event per change).
 *
 * <p>A client that does not keep up (its socket buffer full) is disconnected rather than queued
 * for: memory stays bounded whatever a client does, and it can reconnect and read the current state
 * from {@code /api/v1/services}.
 */
public final class EventHub {
  private final Set<Channel> clients = ConcurrentHashMap.newKeySet();
  private final java.util.List<java.util.function.Consumer<Event>> listeners =
      new java.util.concurrent.CopyOnWriteArrayList<>();
  private final Clock clock;

  public EventHub(Clock clock) {
    this.clock = clock;
  }

  /** One event: what kind, about what, and why. */
  public record Event(
      String time,
      String kind,
      @Nullable String virtualServer,
      @Nullable String realServer,
      String reason) {}

  /** Publishes an event now ({@code realServer} null for a virtual-server event). */
  public void publish(
      EventKind kind, @Nullable String virtualServer, @Nullable String realServer, String reason) {
    Event e = new Event(clock.instant().toString(), kind.wire(), virtualServer, realServer, reason);
    listeners.forEach(l -> l.accept(e));
    String frame = "event: " + e.kind() + "\ndata: " + Json.string(e) + "\n\n";
    for (Channel ch : clients) {
      send(ch, frame);
    }
  }

  /**
   * Publishes an event of another shape than {@link Event} (VRRP's transitions) to the stream:
   * {@code event: KIND}, {@code data: JSON of data}. Listeners are not told; they count {@link
   * Event}s.
   */
  public void publishData(String kind, Object data) {
    String frame = "event: " + kind + "\ndata: " + Json.string(data) + "\n\n";
    for (Channel ch : clients) {
      send(ch, frame);
    }
  }

  /** Also tells {@code listener} of every event (metrics count reloads this way). */
  public void listen(java.util.function.Consumer<Event> listener) {
    listeners.add(listener);
  }

  /** Follows the stream on {@code ch} (the admin listener's {@code GET /api/v1/events}). */
  public void subscribe(Channel ch) {
    clients.add(ch);
    ch.closeFuture().addListener(f -> clients.remove(ch));
    // A comment line, so a client knows the stream is open before the first change.
    send(ch, ": fairway events\n\n");
  }

  /** How many clients follow the stream. */
  public int clients() {
    return clients.size();
  }

  private void send(Channel ch, String frame) {
    if (!ch.isWritable()) {
      ch.close();
      return;
    }
    ch.writeAndFlush(new DefaultHttpContent(Unpooled.copiedBuffer(frame, StandardCharsets.UTF_8)));
  }
}
