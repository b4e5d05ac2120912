package io.fairway.proxy.table;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The key of a frontend's own state on a real server, such as HTTP's idle keep-alive connections to
 * it: kept on the {@link ProxyBackend} so that it lives as long as the destination, and typed by
 * the frontend that declares the key, so that the table holds it without knowing what it is and so
 * without depending on any frontend. One constant per kind of state, each with a slot of its own in
 * every server's small array: a request finds its pool with one array read.
 *
 * @param <T> the state's type
 */
public final class BackendAttachment<T> {
  /** How many kinds of state there may be: the frontends declare a handful, as constants. */
  static final int SLOTS = 8;

  private static final AtomicInteger NEXT = new AtomicInteger();

  private final Supplier<T> initial;
  final int slot;

  private BackendAttachment(Supplier<T> initial, int slot) {
    this.initial = Objects.requireNonNull(initial, "initial");
    this.slot = slot;
  }

  /**
   * A key whose state on a server is made by {@code initial} when first asked for there. Keys are
   * constants: a ninth throws, rather than every server growing a slot per call.
   */
  public static <T> BackendAttachment<T> of(Supplier<T> initial) {
    int slot = NEXT.getAndIncrement();
    if (slot >= SLOTS) {
      throw new IllegalStateException("more than " + SLOTS + " kinds of backend attachment");
    }
    return new BackendAttachment<>(initial, slot);
  }

  Object create() {
    return initial.get();
  }

  /** What {@link #create} made for this key, as its type. */
  @SuppressWarnings("unchecked")
  T cast(Object state) {
    return (T) state;
  }
}
