package io.fairway.proxy.table;

import java.util.Objects;
import java.util.function.Supplier;

/**
 * The key of a frontend's own state on a real server, such as HTTP's idle keep-alive connections to
 * it: kept on the {@link ProxyBackend} so that it lives as long as the destination, and typed by
 * the frontend that declares the key, so that the table holds it without knowing what it is and so
 * without depending on any frontend. Compared by identity: one constant per kind of state.
 *
 * @param <T> the state's type
 */
public final class BackendAttachment<T> {
  private final Supplier<T> initial;

  private BackendAttachment(Supplier<T> initial) {
    this.initial = Objects.requireNonNull(initial, "initial");
  }

  /** A key whose state on a server is made by {@code initial} when first asked for there. */
  public static <T> BackendAttachment<T> of(Supplier<T> initial) {
    return new BackendAttachment<>(initial);
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
