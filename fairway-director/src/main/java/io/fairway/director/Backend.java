package io.fairway.director;

/**
 * Something a director can choose: a real server, or another {@link Director} (layering).
 *
 * <p>A backend is an identity object that outlives snapshots: the same instance stays a member
 * while its weight and health change. Applications that balance client-side implement this on their
 * own endpoint type (or use {@link #named(String)}) and get the same instance back from {@link
 * Director#pick(Request)}.
 */
public interface Backend {

  /** The name directors are configured and looked up by; unique within one director. */
  String name();

  /** A plain named backend, for applications that only need names (and for tests and tools). */
  static Backend named(String name) {
    return new Named(name);
  }

  /** The backend {@link #named(String)} returns. */
  record Named(String name) implements Backend {
    /** Checks the name is not empty. */
    public Named {
      if (name == null || name.isEmpty()) {
        throw new IllegalArgumentException("backend name must not be empty");
      }
    }

    @Override
    public String toString() {
      return name;
    }
  }
}
