package io.fairway.config;

import io.fairway.config.model.CheckerTiming;
import java.time.Duration;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;

/**
 * Checker timing as written at one level (virtual_server, real_server or checker); null means "not
 * written here". keepalived resolves a checker's values from the nearest level that sets them, so
 * each level is kept apart until the checker is built.
 */
final class InheritedTiming {
  @Nullable Duration delayLoop;
  @Nullable Duration connectTimeout;
  @Nullable Long retry;
  @Nullable Duration delayBeforeRetry;
  @Nullable Duration warmup;
  @Nullable Boolean alpha;

  /** Fairway extension (HAProxy's rise): consecutive successes before a down checker comes up. */
  @Nullable Long rise;

  /**
   * True when {@link #retry} came from {@code fall N} (= retry N-1), to refuse both in one block.
   */
  boolean retryFromFall;

  InheritedTiming over(InheritedTiming parent) {
    InheritedTiming t = new InheritedTiming();
    t.delayLoop = delayLoop != null ? delayLoop : parent.delayLoop;
    t.connectTimeout = connectTimeout != null ? connectTimeout : parent.connectTimeout;
    t.retry = retry != null ? retry : parent.retry;
    t.delayBeforeRetry = delayBeforeRetry != null ? delayBeforeRetry : parent.delayBeforeRetry;
    t.warmup = warmup != null ? warmup : parent.warmup;
    t.alpha = alpha != null ? alpha : parent.alpha;
    t.rise = rise != null ? rise : parent.rise;
    return t;
  }

  /**
   * The timing of one level as its keywords are read: a checker's own ({@code checker}, where a
   * retry count of 0 is allowed) or a virtual or real server's.
   */
  record Level(InheritedTiming t, boolean checker, Values v) {}

  /**
   * The timing keywords; {@code nb_get_retry} is read but, being deprecated, not suggested. {@code
   * fall N} is HAProxy's N consecutive failures, keepalived's retry N-1, so one block takes one of
   * the two.
   */
  static final KeywordTable<Level> TABLE =
      new KeywordTable<Level>()
          .on("delay_loop", duration(false, (t, d) -> t.delayLoop = d))
          .on("connect_timeout", duration(false, (t, d) -> t.connectTimeout = d))
          .on("retry", InheritedTiming::retry)
          .unlisted("nb_get_retry", InheritedTiming::retry)
          .on("fall", InheritedTiming::fall)
          .on("rise", InheritedTiming::rise)
          .on("delay_before_retry", duration(true, (t, d) -> t.delayBeforeRetry = d))
          .on("warmup", duration(true, (t, d) -> t.warmup = d))
          .on("alpha", InheritedTiming::alpha);

  /** Handles a timing keyword; returns false if {@code n} is not one. */
  static boolean read(Node n, InheritedTiming t, boolean checker, Values v) {
    return TABLE.dispatch(new Level(t, checker, v), n);
  }

  /** A keyword taking one duration ({@code zeroOk}: 0 allowed); null is set after an error. */
  private static KeywordTable.Handler<Level> duration(
      boolean zeroOk, BiConsumer<InheritedTiming, Duration> set) {
    return (l, n) -> {
      if (l.v().args(n, 1, 1)) {
        set.accept(l.t(), l.v().timer(n, 1, zeroOk));
      }
    };
  }

  private static void retry(Level l, Node n) {
    Values v = l.v();
    if (n.keyword().equals("nb_get_retry")) {
      v.warn(n, "nb_get_retry is deprecated; use retry");
    }
    if (l.t().retryFromFall) {
      v.error(n, n.keyword() + ": this block already has fall (fall N is retry N-1); keep one");
      return;
    }
    if (v.args(n, 1, 1)) {
      l.t().retry = v.number(n, 1, l.checker() ? 0 : 1, Values.UINT32_MAX, "retry count");
    }
  }

  private static void fall(Level l, Node n) {
    InheritedTiming t = l.t();
    if (t.retry != null && !t.retryFromFall) {
      l.v().error(n, "fall: this block already has retry (fall N is retry N-1); keep one");
      return;
    }
    Long f = l.v().args(n, 1, 1) ? l.v().number(n, 1, 1, Integer.MAX_VALUE, "count") : null;
    if (f != null) {
      t.retry = f - 1;
      t.retryFromFall = true;
    }
  }

  private static void rise(Level l, Node n) {
    if (l.v().args(n, 1, 1)) {
      l.t().rise = l.v().number(n, 1, 1, Integer.MAX_VALUE, "count");
    }
  }

  private static void alpha(Level l, Node n) {
    if (l.v().args(n, 0, 1)) {
      l.t().alpha = l.v().bool(n, 1);
    }
  }

  /**
   * The timing of a checker of {@code type} whose own values are {@code own} and whose real and
   * virtual server give {@code inherited}: its own over what it inherits, as far as its type is
   * timed, and its log_all_failures ({@code logAll}, null when not written) over the global one.
   */
  static CheckerTiming forChecker(
      InheritedTiming own,
      InheritedTiming inherited,
      String type,
      @Nullable Boolean logAll,
      boolean logAllFailures) {
    InheritedTiming t = own.over(inherited);
    if (type.equals("FILE_CHECK") || type.equals("BFD_CHECK")) {
      // Nothing is polled, so inherited polling values would only be noise.
      t = own;
      t.alpha = type.equals("BFD_CHECK") ? (own.alpha != null ? own.alpha : inherited.alpha) : null;
    } else if (type.equals("MISC_CHECK")) {
      t.connectTimeout = null;
    }
    CheckerTiming ct = t.resolve(type, logAllFailures);
    if (logAll != null) {
      ct =
          new CheckerTiming(
              ct.delayLoop(),
              ct.connectTimeout(),
              ct.retry(),
              ct.delayBeforeRetry(),
              ct.warmup(),
              ct.alpha(),
              logAll,
              ct.rise());
    }
    return ct;
  }

  /**
   * These values, with what is still unwritten taken from keepalived's defaults for {@code type}
   * (retry and delay_before_retry differ by checker type).
   */
  CheckerTiming resolve(String type, boolean logAllFailures) {
    Duration loop = delayLoop != null ? delayLoop : ModelBuilder.DEFAULT_DELAY_LOOP;
    long retryDefault =
        switch (type) {
          case "DNS_CHECK" -> 3;
          case "MISC_CHECK" -> 0;
          default -> 1;
        };
    Duration dbrDefault =
        switch (type) {
          case "HTTP_GET", "SSL_GET" -> Duration.ofSeconds(3);
          case "DNS_CHECK" -> loop;
          default -> Duration.ofSeconds(1);
        };
    long retries = retry != null ? retry : retryDefault;
    Duration dbr = delayBeforeRetry != null ? delayBeforeRetry : dbrDefault;
    if (type.equals("DNS_CHECK") && dbr.isZero()) {
      dbr = loop;
    }
    return new CheckerTiming(
        loop,
        connectTimeout != null ? connectTimeout : ModelBuilder.DEFAULT_CONNECT_TIMEOUT,
        (int) Math.min(Integer.MAX_VALUE, retries),
        dbr,
        warmup != null ? warmup : loop,
        alpha != null && alpha,
        logAllFailures,
        rise != null ? rise.intValue() : 1);
  }
}
