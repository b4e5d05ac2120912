package io.fairway.testkit;

import io.fairway.table.Dest;
import io.fairway.table.DestKey;
import io.fairway.table.Service;
import io.fairway.table.ServiceEntry;
import io.fairway.table.ServiceKey;
import io.fairway.table.Table;
import io.fairway.table.TableException;
import io.fairway.table.TableOp;
import java.util.List;

/**
 * A table that passes every call on to the one under it after asking {@link #fault} whether that
 * change fails: the fixture for tests of what start, reload and shutdown do when the table refuses
 * (or, being buggy, throws) part way through. A test overrides {@code fault} to fail the changes it
 * names; batches ({@link Table#apply}) run through the calls one by one, so they fail there too.
 * Closing it leaves the table under it to its owner.
 *
 * <pre>{@code
 * Table t = new FaultyTable(memory) {
 *   @Override
 *   protected void fault(TableOp op) throws TableException {
 *     if (op instanceof TableOp.Flush) {
 *       throw new TableException(TableException.Reason.PERMISSION, "flush: EPERM");
 *     }
 *   }
 * };
 * }</pre>
 */
public class FaultyTable implements Table {
  private final Table under;

  public FaultyTable(Table under) {
    this.under = under;
  }

  /**
   * Called with each change before it reaches the table under this one; what it throws is what the
   * caller gets, and the change is not made. Here nothing fails.
   */
  protected void fault(TableOp op) throws TableException {}

  @Override
  public void addService(Service s) throws TableException {
    fault(new TableOp.AddService(s));
    under.addService(s);
  }

  @Override
  public void setService(Service s) throws TableException {
    fault(new TableOp.SetService(s));
    under.setService(s);
  }

  @Override
  public void delService(ServiceKey k) throws TableException {
    fault(new TableOp.DelService(k));
    under.delService(k);
  }

  @Override
  public void addDest(ServiceKey s, Dest d) throws TableException {
    fault(new TableOp.AddDest(s, d));
    under.addDest(s, d);
  }

  @Override
  public void setDest(ServiceKey s, Dest d) throws TableException {
    fault(new TableOp.SetDest(s, d));
    under.setDest(s, d);
  }

  @Override
  public void delDest(ServiceKey s, DestKey d) throws TableException {
    fault(new TableOp.DelDest(s, d));
    under.delDest(s, d);
  }

  @Override
  public List<ServiceEntry> list() throws TableException {
    return under.list();
  }

  @Override
  public void flush() throws TableException {
    fault(new TableOp.Flush());
    under.flush();
  }
}
