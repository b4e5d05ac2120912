package io.fairway.ipvs.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.ipvs.uml.KernelScenarioMain;
import io.fairway.table.MemoryTable;
import io.fairway.table.RandomOps;
import io.fairway.table.TableContract;
import io.fairway.table.TableException;
import io.fairway.table.TableOp;
import io.fairway.testkit.ExternalPrograms;
import io.fairway.testkit.uml.Uml;
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The kernel table against the real Linux IPVS: one user-mode Linux boot runs {@link
 * KernelScenarioMain} inside, and these tests check what it wrote.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KernelTableInUmlTest {
  private Uml.Result run;

  @BeforeAll
  void boot() throws Exception {
    Uml.assumeAvailable();
    // ipvsadm is what the formats are compared with.
    ExternalPrograms.require("ipvsadm", "/usr/sbin/ipvsadm");
    Path out = Path.of("target", "uml", "kernel-table");
    Uml.clean(out);
    String cp = Uml.testClasspath();
    String scenario = Uml.javaCommand(cp, KernelScenarioMain.class.getName());
    Uml.Staged staged = Uml.stageClasspath(cp, "/run/nobody");
    String asNobody =
        staged.shell()
            + " && setpriv --reuid=65534 --regid=65534 --clear-groups "
            + Uml.javaCommand(
                staged.classpath(), KernelScenarioMain.class.getName(), "unprivileged")
            + " > /run/out/unprivileged.txt 2>&1";
    run =
        Uml.builder()
            .command(scenario + " && " + asNobody)
            .outputDir(out)
            .timeout(Duration.ofMinutes(5))
            .run();
    assertThat(run.timedOut()).as(run.diagnostics()).isFalse();
    assertThat(run.exitCode()).as(run.diagnostics()).isZero();
  }

  @Test
  void theWholeTableContractPassesAgainstTheKernel() {
    List<String> lines = run.file("contract.txt").lines().toList();
    long contractTests =
        Arrays.stream(TableContract.class.getDeclaredMethods())
            .filter(m -> m.isAnnotationPresent(Test.class))
            .map(Method::getName)
            .count();
    assertThat(lines).as(run.diagnostics()).allMatch(l -> l.startsWith("PASS "));
    assertThat(lines).hasSize((int) contractTests);
  }

  @Test
  void saveFormatIsIpvsadmsByteForByte() {
    String ours = run.file("fairway-save.txt");
    String theirs = run.file("ipvsadm-save.txt");
    assertThat(run.file("formats.txt")).as("install errors").isEmpty();
    assertThat(ours).isNotBlank();
    assertThat(sorted(ours)).isEqualTo(sorted(theirs));
    assertThat(ours).isEqualTo(theirs);
  }

  @Test
  void listFormatIsIpvsadmsByteForByte() {
    String ours = run.file("fairway-list.txt");
    assertThat(ours.lines().count()).isGreaterThan(10);
    assertThat(ours).isEqualTo(run.file("ipvsadm-list.txt"));
  }

  @Test
  void whatIpvsadmInstallsReadsBackTheSame() {
    String readBack = run.file("readback-save.txt");
    assertThat(readBack).isNotBlank().isEqualTo(run.file("fairway-save.txt"));
  }

  @Test
  void randomOperationsGiveTheSameResultsOnTheKernelAndOnMemoryTable() {
    List<TableOp> ops =
        RandomOps.generate(KernelScenarioMain.DIFF_SEED, KernelScenarioMain.DIFF_OPS);
    MemoryTable memory = new MemoryTable();
    List<TableException> results = new ArrayList<>();
    for (TableOp op : ops) {
      results.addAll(memory.apply(List.of(op)));
    }
    List<String> kernel = run.file("differential-results.txt").lines().toList();
    assertThat(kernel).hasSize(ops.size());
    List<String> ours = RandomOps.describe(results);
    for (int i = 0; i < ops.size(); i++) {
      assertThat(ours.get(i)).as("op %d: %s", i, ops.get(i)).isEqualTo(kernel.get(i));
    }
    // the run must have exercised failures of every kind, or it proves little
    assertThat(String.join("\n", kernel))
        .contains("EXISTS", "NOT_FOUND", "NO_SERVICE", "RANGE", "INVALID");
    assertThat(RandomOps.dump(memory.list()))
        .isEqualTo(run.file("differential-table.txt").lines().toList());
  }

  @Test
  void timeoutsReadAndSetAsIpvsadmShowsThemAndFlushEmptiesTheTable() throws Exception {
    long services =
        KernelScenarioMain.sampleTable().stream()
            .filter(o -> o instanceof TableOp.AddService)
            .count();
    List<String> lines = run.file("timeouts.txt").lines().toList();
    assertThat(lines)
        .as(run.diagnostics())
        .containsExactly(
            "boot fairway Timeout (tcp tcpfin udp): 900 120 300",
            "boot ipvsadm Timeout (tcp tcpfin udp): 900 120 300",
            "set-all ipvsadm Timeout (tcp tcpfin udp): 901 121 301",
            // a zero field is not sent, so the kernel keeps what it had
            "set-tcpfin ipvsadm Timeout (tcp tcpfin udp): 901 55 301",
            "ipvsadm-set fairway Timeout (tcp tcpfin udp): 700 70 170",
            "huge INVALID IPVS set timeouts 2147483647 0 0: refused: a timeout is too large for this"
                + " kernel (EINVAL)",
            "before-flush services " + services,
            "after-flush ipvsadm []");
  }

  @Test
  void withoutCapNetAdminTheOperatorGetsOneClearLine() {
    assertThat(run.file("unprivileged.txt").lines().toList())
        .containsExactly(
            "PERMISSION",
            "IPVS info: permission denied: managing IPVS needs CAP_NET_ADMIN (EPERM)");
  }

  private static List<String> sorted(String s) {
    return s.lines().sorted().toList();
  }
}
