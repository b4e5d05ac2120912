package io.fairway.config;

import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The keywords of one block and what each does to the block's builder, in keepalived's {@code
 * install_keyword} shape. The table is also the list of known keywords that unknown-keyword
 * suggestions draw from, so the two cannot drift apart. A keyword may be handled but left out of
 * the suggestions (deprecated spellings, keywords that only exist to be refused in this block).
 *
 * @param <B> the mutable state a block's handlers fill
 */
final class KeywordTable<B> {
  /** Handles one keyword line (or block) of the table's block. */
  @FunctionalInterface
  interface Handler<B> {
    void handle(B builder, Node line);
  }

  private final Map<String, Handler<B>> handlers = new LinkedHashMap<>();
  private final Set<String> suggested = new HashSet<>();

  /** Registers {@code handler} for each of {@code keywords} (aliases share one handler). */
  KeywordTable<B> on(List<String> keywords, Handler<B> handler) {
    for (String k : keywords) {
      put(k, handler);
      suggested.add(k);
    }
    return this;
  }

  KeywordTable<B> on(String keyword, Handler<B> handler) {
    return on(List.of(keyword), handler);
  }

  /** Registers a keyword that is handled but never offered as a "did you mean" suggestion. */
  KeywordTable<B> unlisted(String keyword, Handler<B> handler) {
    put(keyword, handler);
    return this;
  }

  /**
   * Registers keywords this block refuses, each with why: a line with one is an error naming it and
   * the reason, and none is suggested (they are keepalived's, not Fairway's).
   */
  KeywordTable<B> refuse(Map<String, String> why, Function<B, Values> values) {
    why.forEach(
        (k, reason) ->
            unlisted(
                k, (b, n) -> values.apply(b).error(n, "'" + k + "' is not supported: " + reason)));
    return this;
  }

  /**
   * Registers every keyword of {@code shared}, run on the part of this block's builder that {@code
   * part} picks: how keywords common to several blocks are written once.
   */
  <P> KeywordTable<B> include(KeywordTable<P> shared, Function<B, P> part) {
    for (Map.Entry<String, Handler<P>> e : shared.handlers.entrySet()) {
      Handler<P> h = e.getValue();
      put(e.getKey(), (b, n) -> h.handle(part.apply(b), n));
      if (shared.suggested.contains(e.getKey())) {
        suggested.add(e.getKey());
      }
    }
    return this;
  }

  /** Runs the handler of {@code line}'s keyword; false when this block has no such keyword. */
  boolean dispatch(B builder, Node line) {
    Handler<B> h = handlers.get(line.keyword());
    if (h == null) {
      return false;
    }
    h.handle(builder, line);
    return true;
  }

  /** The keywords offered in unknown-keyword suggestions. */
  Set<String> known() {
    return Collections.unmodifiableSet(suggested);
  }

  private void put(String keyword, Handler<B> handler) {
    if (handlers.putIfAbsent(keyword, handler) != null) {
      throw new IllegalStateException("keyword '" + keyword + "' registered twice");
    }
  }
}
