package io.fairway.proxy;

import java.util.ArrayList;
import java.util.List;

/**
 * What a test opened (servers, tables, clients), closed after it in reverse order: a field
 * annotated {@code @AutoClose}, so every test class does not carry its own list and loop.
 */
// close() waits for what it stops; an interrupt there fails the test like any other error.
@SuppressWarnings("try")
final class Cleanup implements AutoCloseable {
  private final List<AutoCloseable> open = new ArrayList<>();

  /** Closes {@code c} after the test, before whatever was tracked earlier. */
  <T extends AutoCloseable> T track(T c) {
    open.add(0, c);
    return c;
  }

  @Override
  public void close() throws Exception {
    Exception first = null;
    for (AutoCloseable c : open) {
      try {
        c.close();
      } catch (Exception e) {
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
    }
    open.clear();
    if (first != null) {
      throw first;
    }
  }
}
