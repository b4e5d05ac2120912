package io.fairway.check.engine;

import io.fairway.check.CheckEvent;
import io.fairway.check.QuorumChanged;
import io.fairway.check.ServerStateChanged;
import io.fairway.check.VerdictListener;
import io.fairway.check.VerdictSnapshot;
import io.fairway.check.WeightChanged;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/** A recording listener: the events, in order, with the (manual) time each arrived at. */
final class Recorder implements VerdictListener {
  record At(long nanos, CheckEvent event) {}

  final List<VerdictSnapshot> initial = new ArrayList<>();
  final List<At> events = new ArrayList<>();
  private final EngineClock clock;
  Predicate<ServerStateChanged> refuse = e -> false;

  Recorder(EngineClock clock) {
    this.clock = clock;
  }

  @Override
  public synchronized void initialState(VerdictSnapshot status) {
    initial.add(status);
  }

  @Override
  public synchronized void serverStateChanged(ServerStateChanged event) {
    if (refuse.test(event)) {
      throw new IllegalStateException("table refused");
    }
    events.add(new At(clock.nanoTime(), event));
  }

  @Override
  public synchronized void weightChanged(WeightChanged event) {
    events.add(new At(clock.nanoTime(), event));
  }

  @Override
  public synchronized void quorumChanged(QuorumChanged event) {
    events.add(new At(clock.nanoTime(), event));
  }

  synchronized <T extends CheckEvent> List<T> of(Class<T> type) {
    return events.stream().map(At::event).filter(type::isInstance).map(type::cast).toList();
  }

  synchronized List<At> at(Class<? extends CheckEvent> type) {
    return events.stream().filter(a -> type.isInstance(a.event())).toList();
  }
}
