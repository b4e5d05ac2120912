package io.fairway.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Mutated configurations either load or fail with {@link ConfigException}; nothing else escapes.
 *
 * <p>CI runs {@code jqwik.tries.default} (200) cases per property. For a longer local run: {@code
 * mvn -o -B -pl fairway-config -am test -Dtest=FuzzTest -Dsurefire.failIfNoSpecifiedTests=false
 * -Djqwik.tries.default=50000}.
 */
class FuzzTest {

  static final List<String> SOURCES =
      Fixtures.ALL.stream()
          .filter(f -> !f.contains("include"))
          .map(KeepalivedConfigTest::read)
          .toList();

  /** Fragments that exercise every lexical path: braces, quotes, macros, repeaters, numbers. */
  static final List<String> VOCABULARY =
      List.of(
          "{",
          "}",
          "\"",
          "'",
          "#",
          "!",
          "\\",
          "\n",
          " ",
          "$",
          "$X",
          "${X}",
          "$X=1",
          "$Y=\\\n",
          "${_RANDOM}",
          "${_ENV",
          "@testhost ",
          "@^x ",
          "~SEQ(",
          "~SEQ(I, 3) ",
          "~LST(",
          "~LST(A, 1, 2) ",
          ")",
          ",",
          "include ",
          "include nope*.conf\n",
          "virtual_server ",
          "real_server ",
          "fwmark ",
          "group ",
          "TCP_CHECK {",
          "HTTP_GET {",
          "url {",
          "weight ",
          "quorum ",
          "lb_algo ",
          "lb_kind ",
          "shard {",
          "by ",
          "HEADER",
          "-1",
          "0",
          "65536",
          "4294967296",
          "1.5",
          "0x1f",
          "127.0.0.1",
          "::1",
          "fd00::1-ff",
          "10.0.0.1/33",
          "\u00e9",
          "\u0000",
          "\t",
          "virtual_server_group G {",
          "uthreshold 1",
          "lthreshold 9",
          "sorry_server 127.0.0.1 80",
          "status_code 100-700",
          "track_file ");

  record Mutation(int kind, double position, double length, String insert) {}

  @Provide
  Arbitrary<List<Mutation>> mutations() {
    Arbitrary<Mutation> m =
        Combinators.combine(
                Arbitraries.integers().between(0, 4),
                Arbitraries.doubles().between(0, 1),
                Arbitraries.doubles().between(0, 1),
                Arbitraries.of(VOCABULARY))
            .as(Mutation::new);
    return m.list().ofMinSize(1).ofMaxSize(8);
  }

  static String apply(String text, List<Mutation> ms) {
    StringBuilder sb = new StringBuilder(text);
    for (Mutation m : ms) {
      int pos = (int) (m.position() * sb.length());
      int len = (int) (m.length() * Math.min(40, sb.length() - pos));
      switch (m.kind()) {
        case 0 -> sb.insert(pos, m.insert());
        case 1 -> sb.delete(pos, pos + len);
        case 2 -> sb.replace(pos, pos + len, m.insert());
        case 3 -> { // duplicate a line
          List<String> lines = new ArrayList<>(Arrays.asList(sb.toString().split("\n", -1)));
          int i = (int) (m.position() * (lines.size() - 1));
          lines.add(i, lines.get(i));
          sb = new StringBuilder(String.join("\n", lines));
        }
        default -> { // swap two lines
          List<String> lines = new ArrayList<>(Arrays.asList(sb.toString().split("\n", -1)));
          int i = (int) (m.position() * (lines.size() - 1));
          int j = (int) (m.length() * (lines.size() - 1));
          String t = lines.get(i);
          lines.set(i, lines.get(j));
          lines.set(j, t);
          sb = new StringBuilder(String.join("\n", lines));
        }
      }
    }
    return sb.toString();
  }

  @Property
  void onlyConfigExceptionEscapes(
      @ForAll("sources") String source, @ForAll("mutations") List<Mutation> mutations) {
    String text = apply(source, mutations);
    try {
      ParseResult r =
          KeepalivedConfig.parse("fuzz.conf", text, Path.of("target"), Fixtures.OPTIONS);
      // What loads must also print and load back.
      String dump = KeepalivedConfig.dump(r.config());
      assertThat(
              KeepalivedConfig.parse("dump.conf", dump, Path.of("target"), Fixtures.OPTIONS)
                  .config())
          .isEqualTo(r.config());
    } catch (ConfigException e) {
      assertThat(e.errors()).isNotEmpty();
      for (Diagnostic d : e.errors()) {
        assertThat(d.format()).doesNotContain("\n").startsWith("fuzz.conf");
      }
    }
  }

  @Provide
  Arbitrary<String> sources() {
    return Arbitraries.of(SOURCES);
  }
}
