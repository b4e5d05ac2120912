package io.fairway.ipvs.uml;

import io.fairway.ipvs.*;
import io.fairway.ipvs.kernel.IpvsKernelTable;
import java.net.InetAddress;

/** Scratch: exercise the kernel table once. */
public final class SmokeMain {
  public static void main(String[] args) throws Exception {
    try (IpvsKernelTable t = IpvsKernelTable.open()) {
      System.out.println(t.info().headerLine());
      ServiceKey k = ServiceKey.of(Protocol.TCP, InetAddress.getByName("10.16.0.1"), 80);
      t.addService(Service.of(k, "rr"));
      t.addDest(k, Dest.of(InetAddress.getByName("10.16.1.1"), 80, 3));
      try { t.addDest(k, Dest.of(InetAddress.getByName("10.16.1.1"), 80, 3)); } catch (TableException e) { System.out.println(e.getMessage()); }
      System.out.println(t.list());
    }
  }
}
