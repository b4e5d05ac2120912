package io.fairway.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Bad input is one error per problem, naming file and line, never another exception. */
class ErrorsTest {

  static final String VS = "virtual_server 127.0.0.1 80 {\n    protocol TCP\n";
  static final String RS = "    real_server 127.0.0.2 80 {\n";

  static Stream<Arguments> badConfigs() {
    return Stream.of(
        Arguments.of("unclosed brace", VS + RS + "    }\n", 1, "never closed"),
        Arguments.of("extra brace", "global_defs {\n}\n}\n", 3, "unbalanced '}'"),
        Arguments.of(
            "unterminated quote",
            VS + "    quorum_up \"/bin/true\n" + RS + "}\n}\n",
            3,
            "unterminated quoted string"),
        Arguments.of(
            "bad VS address",
            "virtual_server 127.0.0 80 {\n" + RS + "}\n}\n",
            1,
            "'127.0.0' is not an IPv4 or IPv6 address"),
        Arguments.of(
            "host name as address",
            "virtual_server localhost 80 {\n" + RS + "}\n}\n",
            1,
            "not an IPv4 or IPv6 address"),
        Arguments.of(
            "bad RS address",
            VS + "    real_server 300.0.0.1 80 {\n    }\n}\n",
            3,
            "'300.0.0.1' is not an IPv4"),
        Arguments.of(
            "port out of range",
            "virtual_server 127.0.0.1 70000 {\n" + RS + "}\n}\n",
            1,
            "port 70000 is out of range 0..65535"),
        Arguments.of(
            "weight out of range",
            VS + RS + "        weight 3000000000\n    }\n}\n",
            4,
            "weight 3000000000 is out of range"),
        Arguments.of(
            "negative weight",
            VS + RS + "        weight -1\n    }\n}\n",
            4,
            "weight -1 is out of range"),
        Arguments.of(
            "quorum zero",
            VS + "    quorum 0\n" + RS + "    }\n}\n",
            3,
            "quorum 0 is out of range 1..4294967295"),
        Arguments.of(
            "not a number",
            VS + "    delay_loop soon\n" + RS + "    }\n}\n",
            3,
            "'soon' is not a time in seconds"),
        Arguments.of(
            "inverted thresholds",
            VS + RS + "        uthreshold 5\n        lthreshold 10\n" + "    }\n}\n",
            5,
            "lthreshold 10 is above uthreshold 5"),
        Arguments.of(
            "lthreshold alone",
            VS + RS + "        lthreshold 10\n    }\n}\n",
            4,
            "without uthreshold"),
        Arguments.of(
            "unknown scheduler",
            VS + "    lb_algo rrr\n" + RS + "    }\n}\n",
            3,
            "unknown scheduler 'rrr' (did you mean 'rr'?)"),
        Arguments.of(
            "unknown forwarding",
            VS + "    lb_kind NATT\n" + RS + "    }\n}\n",
            3,
            "unknown forwarding method 'NATT' (did you mean 'NAT'?)"),
        Arguments.of(
            "misspelt keyword",
            VS + RS + "        wieght 2\n    }\n}\n",
            4,
            "unknown keyword 'wieght' in real_server (did you mean 'weight'?)"),
        Arguments.of(
            "unknown top level",
            "virtual_sever 127.0.0.1 80 {\n}\n",
            1,
            "did you mean 'virtual_server'?"),
        Arguments.of(
            "missing include",
            "include does-not-exist.conf\n",
            1,
            "no file matches 'does-not-exist.conf'"),
        Arguments.of(
            "sorry server is a real server",
            VS + "    sorry_server 127.0.0.2 80\n" + RS + "    }\n}\n",
            3,
            "is also a real_server"),
        Arguments.of(
            "sorry server is a real server, with overflow",
            VS
                + "    overflow_to_sorry_server\n    sorry_server 127.0.0.2 80\n"
                + RS
                + "    }\n}\n",
            4,
            "is also a real_server"),
        Arguments.of(
            "overflow without sorry server",
            VS + "    overflow_to_sorry_server\n" + RS + "    }\n}\n",
            3,
            "overflow_to_sorry_server needs a sorry_server"),
        Arguments.of(
            "negative slow_start",
            VS + "    slow_start -5\n" + RS + "    }\n}\n",
            3,
            "slow_start: -5 is negative"),
        Arguments.of(
            "slow_start not a duration",
            VS + RS + "        slow_start soon\n    }\n}\n",
            4,
            "slow_start: 'soon' is not a time in seconds"),
        Arguments.of(
            "slow_start without a value",
            VS + RS + "        slow_start\n    }\n}\n",
            4,
            "slow_start"),
        Arguments.of(
            "max_conns not a number",
            VS + RS + "        max_conns lots\n    }\n}\n",
            4,
            "max_conns: connections 'lots' is not a number"),
        Arguments.of(
            "negative max_conns",
            VS + "    max_conns -1\n" + RS + "    }\n}\n",
            3,
            "max_conns: connections -1 is out of range 0..2147483647"),
        Arguments.of(
            "duplicate names",
            VS
                + RS
                + "        name a\n    }\n"
                + "    real_server 127.0.0.3 80 {\n        name a\n    }\n}\n",
            6,
            "duplicate real_server name 'a'"),
        Arguments.of(
            "duplicate idents",
            VS
                + "    lb_algo shard\n    lb_kind PROXY\n"
                + RS
                + "        ident n1\n    }\n    real_server 127.0.0.3 80 {\n        ident n1\n    }\n}\n",
            8,
            "duplicate real_server ident 'n1'"),
        Arguments.of(
            "replicas zero",
            VS
                + "    lb_algo shard\n    lb_kind PROXY\n    shard {\n"
                + "        replicas 0\n    }\n"
                + RS
                + "    }\n}\n",
            6,
            "replicas 0 is out of range"),
        Arguments.of(
            "unknown key mode",
            VS
                + "    lb_algo hash\n    lb_kind HTTP\n    hash {\n"
                + "        by BODY\n    }\n"
                + RS
                + "    }\n}\n",
            6,
            "by: 'BODY' is not one of"),
        Arguments.of(
            "URL key over TCP",
            VS
                + "    lb_algo hash\n    lb_kind PROXY\n    hash {\n"
                + "        by URL\n    }\n"
                + RS
                + "    }\n}\n",
            6,
            "by URL needs lb_kind HTTP"),
        Arguments.of(
            "director block for another algo",
            VS + "    lb_algo rr\n    shard {\n" + "    }\n" + RS + "    }\n}\n",
            4,
            "'shard { }' needs lb_algo shard"),
        Arguments.of(
            "varnish director on the kernel",
            VS + "    lb_algo random\n    lb_kind DR\n" + RS + "    }\n}\n",
            4,
            "needs Fairway's data plane"),
        Arguments.of(
            "decimal weight for the kernel",
            VS + "    lb_algo wrr\n" + RS + "        weight 1.5\n    }\n}\n",
            5,
            "weight must be an integer for lb_algo wrr"),
        Arguments.of(
            "sh flag without sh",
            VS + "    lb_algo rr\n    sh-port\n" + RS + "    }\n}\n",
            4,
            "sh-port needs lb_algo sh"),
        Arguments.of(
            "hash_balance_factor too small",
            VS + "    lb_algo mh\n" + "    hash_balance_factor 50\n" + RS + "    }\n}\n",
            4,
            "above 100"),
        Arguments.of(
            "unknown group",
            "virtual_server group NOPE {\n" + RS + "    }\n}\n",
            1,
            "'NOPE' is not defined"),
        Arguments.of(
            "recursive definition",
            "$A=x $A\nglobal_defs {\n    router_id $A\n}\n",
            3,
            "expands into itself"),
        Arguments.of(
            "line too long",
            "global_defs {\n    router_id " + "x".repeat(1100) + "\n}\n",
            2,
            "longer than keepalived's limit"),
        Arguments.of(
            "keyword needs block", "virtual_server 127.0.0.1 80\n", 1, "needs a { } block"),
        Arguments.of(
            "bad status code",
            VS
                + RS
                + "        HTTP_GET {\n            url {\n"
                + "                path /\n                status_code 200-700\n            }\n"
                + "        }\n    }\n}\n",
            7,
            "status_code: '200-700'"),
        Arguments.of(
            "bad digest",
            VS
                + RS
                + "        HTTP_GET {\n            url {\n"
                + "                path /\n                digest xyz\n            }\n"
                + "        }\n    }\n}\n",
            7,
            "not an MD5"),
        Arguments.of("brace before keyword", "{\n}\n", 1, "'{' without a keyword"),
        Arguments.of(
            "group host bits",
            "virtual_server_group G {\n    10.0.0.1/30 80\n}\n",
            2,
            "has host bits set"),
        Arguments.of(
            "group range backwards",
            "virtual_server_group G {\n    10.0.0.9-3 80\n}\n",
            2,
            "ends before it starts"),
        Arguments.of(
            "group mixed families need fwmark family",
            "virtual_server_group G {\n" + "    10.0.0.1 80\n    fd00::1 80\n    fwmark 3\n}\n",
            4,
            "needs a family"),
        Arguments.of(
            "gue without port",
            VS + "    lb_kind TUN type gue\n" + RS + "    }\n}\n",
            3,
            "tunnel type gue needs a port"),
        Arguments.of(
            "misc without path",
            VS
                + RS
                + "        MISC_CHECK {\n            misc_timeout 3\n"
                + "        }\n    }\n}\n",
            4,
            "MISC_CHECK needs misc_path"),
        Arguments.of(
            "file check of unknown track_file",
            "track_file maint {\n    file /tmp/m\n}\n"
                + VS
                + RS
                + "        FILE_CHECK {\n            track_file mant\n        }\n    }\n}\n",
            8,
            "(did you mean 'maint'?)"),
        Arguments.of(
            "duplicate virtual server",
            VS + RS + "    }\n}\n" + VS + RS + "    }\n}\n",
            6,
            "duplicate virtual_server TCP 127.0.0.1:80"),
        Arguments.of(
            "family mismatch",
            VS + "    real_server fd00::2 80 {\n    }\n}\n",
            3,
            "is inet6 but the virtual_server is inet"),
        Arguments.of(
            "proxy without TCP",
            VS.replace("TCP", "UDP") + "    lb_kind PROXY\n" + RS + "    }\n}\n",
            2,
            "proxies TCP only"),
        Arguments.of(
            "connect_timeout in MISC_CHECK",
            VS
                + RS
                + "        MISC_CHECK {\n"
                + "            misc_path /bin/true\n            connect_timeout 3\n        }\n    }\n}\n",
            6,
            "unknown keyword 'connect_timeout' in MISC_CHECK"),
        Arguments.of(
            "bad boolean",
            VS + "    omega maybe\n" + RS + "    }\n}\n",
            3,
            "'maybe' is not a boolean"),
        Arguments.of(
            "too many decimals",
            VS + "    delay_loop 1.1234567\n" + RS + "    }\n}\n",
            3,
            "up to 6 decimals"),
        Arguments.of(
            "unterminated SEQ",
            VS + "    ~SEQ(I, 3 real_server 127.0.0.$I 80 { }\n}\n",
            3,
            "missing ')'"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badConfigs")
  void oneLineErrorWithFileAndLine(String name, String text, int line, String message) {
    ConfigException e = catchThrowableOfType(ConfigException.class, () -> Fixtures.parse(text));
    assertThat(e).as("expected a ConfigException").isNotNull();
    assertThat(e.errors()).isNotEmpty();
    assertThat(e.errors())
        .anySatisfy(
            d -> {
              assertThat(d.file()).isEqualTo("test.conf");
              assertThat(d.line()).isEqualTo(line);
              assertThat(d.message()).contains(message);
            });
    for (String l : e.getMessage().split("\n")) {
      assertThat(l).matches("test\\.conf:\\d+: .*");
    }
  }

  @Test
  void errorsShowTheOffendingText() {
    ConfigException e =
        catchThrowableOfType(
            ConfigException.class, () -> Fixtures.parse(VS + RS + "        wieght 2\n    }\n}\n"));
    assertThat(e.getMessage())
        .isEqualTo(
            "test.conf:4: unknown keyword 'wieght' in real_server "
                + "(did you mean 'weight'?)  | wieght 2");
  }

  /** A definition that uses itself, in a line's words or alone as one of its own lines. */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "$A=x $A\nglobal_defs {\n    router_id $A\n}\n",
        "$A=\\\n$A\\\nx\nglobal_defs {\n$A\n}\n"
      })
  void aSelfExpandingDefinitionIsReportedOnce(String text) {
    ConfigException e = catchThrowableOfType(ConfigException.class, () -> Fixtures.parse(text));
    assertThat(e).as("expected a ConfigException").isNotNull();
    assertThat(e.errors())
        .filteredOn(d -> d.message().contains("definition expands into itself"))
        .singleElement()
        .satisfies(d -> assertThat(d.line()).isEqualTo(text.startsWith("$A=x") ? 3 : 5));
  }

  @Test
  void errorsInIncludedFilesNameTheIncludedFile(@TempDir Path dir) throws Exception {
    Files.writeString(dir.resolve("main.conf"), "global_defs {\n}\ninclude sub/*.conf\n");
    Files.createDirectories(dir.resolve("sub"));
    Files.writeString(
        dir.resolve("sub/vs.conf"), "\n\n" + VS + RS + "        weight x\n    }\n}\n");
    assertThatThrownBy(() -> KeepalivedConfig.parse(dir.resolve("main.conf"), Fixtures.OPTIONS))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("vs.conf:6: weight: weight 'x' is not a number");
  }

  @Test
  void includeLoopIsBounded(@TempDir Path dir) throws Exception {
    Files.writeString(dir.resolve("self.conf"), "include self.conf\n");
    assertThatThrownBy(() -> KeepalivedConfig.parse(dir.resolve("self.conf"), Fixtures.OPTIONS))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("includes nested more than 32 deep");
  }

  @Test
  void missingFileIsAnError(@TempDir Path dir) {
    assertThatThrownBy(() -> KeepalivedConfig.parse(dir.resolve("nope.conf"), Fixtures.OPTIONS))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("nope.conf: cannot read file: no such file");
  }

  @Test
  void severalErrorsAreAllReported() {
    ConfigException e =
        catchThrowableOfType(
            ConfigException.class,
            () ->
                Fixtures.parse(
                    VS
                        + "    lb_algo nope\n"
                        + RS
                        + "        weight x\n        lthreshold 3\n    }\n}\n"));
    assertThat(e.errors()).extracting(Diagnostic::line).containsExactly(3, 5, 6);
  }
}
