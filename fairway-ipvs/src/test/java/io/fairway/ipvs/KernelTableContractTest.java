package io.fairway.ipvs;

import io.fairway.ipvs.kernel.IpvsKernelTable;
import io.fairway.table.*;
import io.fairway.testkit.uml.Uml;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;

/**
 * The table contract against the kernel's IPVS. Runs only inside user-mode Linux (see {@code
 * KernelTableInUmlTest}, which boots it and runs this class there): on a real host it would flush
 * the host's own IPVS table, so it refuses to run anywhere else.
 */
public class KernelTableContractTest extends TableContract {
  @Override
  protected Table newTable() throws Exception {
    Assumptions.assumeTrue(
        Uml.inside(), "runs only inside user-mode Linux (it flushes the IPVS table)");
    IpvsKernelTable t = IpvsKernelTable.open();
    t.flush();
    return t;
  }

  @AfterEach
  void close() throws Exception {
    if (table != null) {
      table.close();
    }
  }
}
