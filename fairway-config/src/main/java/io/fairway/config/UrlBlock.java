package io.fairway.config;

import io.fairway.config.model.RegexOption;
import io.fairway.config.model.StatusRange;
import io.fairway.config.model.UrlCheck;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.jspecify.annotations.Nullable;

/**
 * A {@code url} block of HTTP_GET or SSL_GET as written: the keyword table, the state its handlers
 * fill, and the checks of that state alone. A url is its own block because what it checks (path,
 * digest, status codes, regex) does not depend on the checker around it, only its vhost default.
 */
final class UrlBlock {
  final Values v;
  @Nullable String path;
  Optional<String> digest = Optional.empty();
  final List<StatusRange> codes = new ArrayList<>();
  @Nullable String vhost;
  Optional<String> regex = Optional.empty();
  @Nullable Node regexNode;
  boolean noMatch;
  final Set<RegexOption> options = EnumSet.noneOf(RegexOption.class);
  long minOffset;
  OptionalLong maxOffset = OptionalLong.empty();
  @Nullable Node maxNode;

  private UrlBlock(Values v) {
    this.v = v;
  }

  private static final KeywordTable<UrlBlock> TABLE = table();

  /** The keywords of a url block, for suggestions. */
  static Set<String> keywords() {
    return TABLE.known();
  }

  private static KeywordTable<UrlBlock> table() {
    KeywordTable<UrlBlock> t = new KeywordTable<>();
    t.on(
        "path",
        (u, c) -> {
          if (u.v.args(c, 1, 1)) {
            u.path = c.arg(1);
          }
        });
    t.on(
        "digest",
        (u, c) -> {
          if (u.v.args(c, 1, 1)) {
            if (c.arg(1).matches("[0-9A-Fa-f]{32}")) {
              u.digest = Optional.of(c.arg(1).toLowerCase(Locale.ROOT));
            } else {
              u.v.error(c, "digest: '" + c.arg(1) + "' is not an MD5 in hex (32 digits)");
            }
          }
        });
    t.on(
        "status_code",
        (u, c) -> {
          if (u.v.args(c, 1, 100)) {
            for (int i = 1; i <= c.argc(); i++) {
              StatusRange r = u.status(c, c.arg(i));
              if (r != null) {
                u.codes.add(r);
              }
            }
          }
        });
    t.on(
        "virtualhost",
        (u, c) -> {
          if (u.v.args(c, 1, 1)) {
            u.vhost = c.arg(1);
          }
        });
    regexKeywords(t);
    return t;
  }

  private static void regexKeywords(KeywordTable<UrlBlock> t) {
    t.on(
        "regex",
        (u, c) -> {
          if (u.v.args(c, 1, 1)) {
            u.regex = Optional.of(c.arg(1));
            u.regexNode = c;
          }
        });
    t.on(
        "regex_no_match",
        (u, c) -> {
          Boolean b = u.v.args(c, 0, 1) ? u.v.bool(c, 1) : null;
          u.noMatch = b != null && b;
        });
    t.on(
        "regex_options",
        (u, c) -> {
          if (u.v.args(c, 1, 100)) {
            for (int i = 1; i <= c.argc(); i++) {
              u.regexOption(c, c.arg(i), u.options);
            }
          }
        });
    t.on(
        "regex_min_offset",
        (u, c) -> {
          if (u.v.args(c, 1, 1)) {
            Long o = u.v.number(c, 1, 0, Long.MAX_VALUE - 1, "offset");
            u.minOffset = o == null ? u.minOffset : o;
          }
        });
    t.on(
        "regex_max_offset",
        (u, c) -> {
          if (u.v.args(c, 1, 1)) {
            Long o = u.v.number(c, 1, 0, Long.MAX_VALUE - 1, "offset");
            u.maxOffset = o == null ? u.maxOffset : OptionalLong.of(o);
            u.maxNode = c;
          }
        });
    // PCRE2's JIT stack size: java.util.regex has no such knob (its stack is the thread's).
    t.on(
        "regex_stack",
        (u, c) -> u.v.warn(c, "regex_stack has no meaning for Java regular expressions; ignored"));
  }

  /** The url block {@code n}, its virtualhost defaulting to {@code vhost}; null when refused. */
  static @Nullable UrlCheck read(Values v, Node n, @Nullable String vhost) {
    if (n.argc() > 0) {
      v.error(n, "url takes no arguments before its { } block");
    }
    UrlBlock u = new UrlBlock(v);
    for (Node c : n.block()) {
      if (!TABLE.dispatch(u, c)) {
        v.unknown(c, TABLE.known(), "url");
      }
    }
    if (u.path == null) {
      v.error(n, "url needs a path");
      return null;
    }
    if (u.codes.isEmpty()) {
      u.codes.add(StatusRange.DEFAULT);
    }
    regex(n, u);
    return new UrlCheck(
        u.path,
        u.digest,
        u.codes,
        Optional.ofNullable(u.vhost != null ? u.vhost : vhost),
        u.regex,
        u.noMatch,
        u.options,
        u.minOffset,
        u.maxOffset);
  }

  /** The regex must compile; its options mean nothing without it. */
  private static void regex(Node n, UrlBlock u) {
    Values v = u.v;
    if (u.regexNode != null) {
      int flags = 0;
      for (RegexOption o : u.options) {
        flags |= o.javaFlags();
      }
      try {
        Pattern.compile(u.regex.get(), flags);
      } catch (PatternSyntaxException e) {
        v.error(
            u.regexNode,
            "regex: "
                + e.getDescription()
                + " near index "
                + e.getIndex()
                + " of '"
                + u.regex.get()
                + "'");
      }
    } else if (u.noMatch || !u.options.isEmpty() || u.minOffset != 0 || u.maxOffset.isPresent()) {
      // keepalived drops these with a log line; say so where the operator can see it.
      v.warn(n, "regex_no_match/regex_options/regex_*_offset without regex; ignored");
      u.noMatch = false;
      u.options.clear();
      u.minOffset = 0;
      u.maxOffset = OptionalLong.empty();
    }
    if (u.maxOffset.isPresent() && u.minOffset > u.maxOffset.getAsLong()) {
      v.error(
          Objects.requireNonNull(u.maxNode, "max_offset was read from a node"),
          "regex_max_offset "
              + u.maxOffset.getAsLong()
              + " is below regex_min_offset "
              + u.minOffset
              + ": no match could ever start in between");
    }
  }

  private void regexOption(Node c, String name, Set<RegexOption> into) {
    Optional<RegexOption> o = RegexOption.of(name);
    if (o.isEmpty()) {
      List<String> all = new ArrayList<>();
      for (RegexOption x : RegexOption.values()) {
        all.add(x.keyword());
      }
      v.error(
          c,
          "regex_options: unknown option '"
              + name
              + "'"
              + Keywords.suggest(name, all).map(x -> " (did you mean '" + x + "'?)").orElse(""));
    } else if (!o.get().supported()) {
      v.error(
          c,
          "regex_options: '"
              + name
              + "' has no Java equivalent; Fairway supports "
              + "caseless dotall extended firstline multiline ucp utf and PCRE2's no-op tuning options");
    } else {
      into.add(o.get());
    }
  }

  private @Nullable StatusRange status(Node c, String s) {
    String[] p = s.split("-", -1);
    if (p.length > 2) {
      v.error(c, "status_code: '" + s + "' is not CODE or FROM-TO");
      return null;
    }
    Long a = Values.parseLong(p[0]);
    Long b = p.length == 2 ? Values.parseLong(p[1]) : a;
    if (a == null || b == null || a < 100 || b > 599 || a > b) {
      v.error(c, "status_code: '" + s + "' is not a status code or range within 100-599");
      return null;
    }
    return new StatusRange(a.intValue(), b.intValue());
  }
}
