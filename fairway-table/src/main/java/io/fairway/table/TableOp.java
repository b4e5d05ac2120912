package io.fairway.table;

/** One table operation, for batching with {@link Table#apply}. */
public sealed interface TableOp {

  /** Runs this operation against a table, one call. */
  void applyTo(Table table) throws TableException;

  record AddService(Service service) implements TableOp {
    @Override
    public void applyTo(Table t) throws TableException {
      t.addService(service);
    }
  }

  record SetService(Service service) implements TableOp {
    @Override
    public void applyTo(Table t) throws TableException {
      t.setService(service);
    }
  }

  record DelService(ServiceKey key) implements TableOp {
    @Override
    public void applyTo(Table t) throws TableException {
      t.delService(key);
    }
  }

  record AddDest(ServiceKey service, Dest dest) implements TableOp {
    @Override
    public void applyTo(Table t) throws TableException {
      t.addDest(service, dest);
    }
  }

  record SetDest(ServiceKey service, Dest dest) implements TableOp {
    @Override
    public void applyTo(Table t) throws TableException {
      t.setDest(service, dest);
    }
  }

  record DelDest(ServiceKey service, DestKey dest) implements TableOp {
    @Override
    public void applyTo(Table t) throws TableException {
      t.delDest(service, dest);
    }
  }

  record Flush() implements TableOp {
    @Override
    public void applyTo(Table t) throws TableException {
      t.flush();
    }
  }
}
