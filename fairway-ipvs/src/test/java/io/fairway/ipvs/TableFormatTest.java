package io.fairway.ipvs;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.ipvs.uml.KernelScenarioMain;
import io.fairway.table.*;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Fairway's rendering of a table against real ipvsadm's output for the same table, captured in
 * user-mode Linux (KernelTableInUmlTest re-checks this live on every run).
 */
class TableFormatTest {
  private static String resource(String name) throws Exception {
    try (InputStream in = TableFormatTest.class.getResourceAsStream("/captured/" + name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static List<ServiceEntry> sample() throws Exception {
    MemoryTable t = new MemoryTable();
    assertThat(t.apply(KernelScenarioMain.sampleTable())).containsOnlyNulls();
    return t.list();
  }

  @Test
  void saveFormatEqualsIpvsadmSn() throws Exception {
    assertThat(TableFormat.save(sample())).isEqualTo(resource("ipvsadm-Sn.txt"));
  }

  @Test
  void listFormatEqualsIpvsadmLn() throws Exception {
    assertThat(TableFormat.list(sample())).isEqualTo(resource("ipvsadm-Ln.txt"));
  }

  @Test
  void destinationLinesCanCarryAnAnnotation() throws Exception {
    String out =
        TableFormat.list(sample(), "header", (svc, d) -> d.dest().weight() == 0 ? "  drained" : "");
    assertThat(out).startsWith("header\n");
    assertThat(out)
        .contains(
            "  -> 10.16.1.2:8080               Masq    0      0          0           drained\n");
  }

  @Test
  void sortingFollowsIpvsadmsWrappingComparison() throws Exception {
    ServiceKey k = ServiceKey.of(Protocol.TCP, TableContract.ip("10.16.0.1"), 80);
    ServiceEntry e =
        new ServiceEntry(
            Service.of(k, "rr"),
            List.of(
                new DestEntry(Dest.of(TableContract.ip("10.1.1.1"), 80, 1), 0, 0, 0, Stats.ZERO),
                new DestEntry(Dest.of(TableContract.ip("192.168.7.9"), 80, 1), 0, 0, 0, Stats.ZERO),
                new DestEntry(Dest.of(TableContract.ip("10.1.1.1"), 79, 1), 0, 0, 0, Stats.ZERO)),
            Stats.ZERO);
    // ipvsadm subtracts addresses as signed 32-bit ints: 192.168.x sorts before 10.x
    // (seen with the real ipvsadm -Sn in user-mode Linux).
    assertThat(TableFormat.saveLines(List.of(e)))
        .containsExactly(
            "-A -t 10.16.0.1:80 -s rr",
            "-a -t 10.16.0.1:80 -r 192.168.7.9:80 -m -w 1",
            "-a -t 10.16.0.1:80 -r 10.1.1.1:79 -m -w 1",
            "-a -t 10.16.0.1:80 -r 10.1.1.1:80 -m -w 1");
  }
}
