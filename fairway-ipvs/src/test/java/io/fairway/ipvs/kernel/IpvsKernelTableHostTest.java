package io.fairway.ipvs.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.table.TableException;
import io.fairway.testkit.uml.Uml;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * On a host without IPVS (like this project's build machines) opening the table says so in one
 * line.
 */
class IpvsKernelTableHostTest {
  @Test
  void aKernelWithoutIpvsGetsOneClearLine() {
    Assumptions.assumeFalse(Uml.inside());
    try (IpvsKernelTable t = IpvsKernelTable.open()) {
      Assumptions.abort("this host's kernel has IPVS (" + t.info().headerLine() + ")");
    } catch (TableException e) {
      if (e.reason() == TableException.Reason.PERMISSION) {
        assertThat(e.getMessage()).contains("CAP_NET_ADMIN");
        return;
      }
      assertThat(e.reason()).isEqualTo(TableException.Reason.UNAVAILABLE);
      assertThat(e.getMessage()).isEqualTo(IpvsKernelTable.NO_IPVS).doesNotContain("\n");
    }
  }
}
