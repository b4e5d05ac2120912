package io.fairway.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.config.KeepalivedConfig;
import io.fairway.config.ParseResult;
import io.fairway.config.model.VirtualServer;
import io.fairway.plan.Plan;
import io.fairway.plan.PlanBuilder;
import io.fairway.plan.ServicePlan;
import io.fairway.proxy.table.ListenerSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Every file in examples/ loads without warnings and names its algorithm and data plane. */
class ExamplesTest {
  @Test
  void everyExampleLoadsCleanly() throws Exception {
    Path dir = Path.of("..", "examples");
    List<Path> files;
    try (Stream<Path> s = Files.list(dir)) {
      files = s.filter(p -> p.toString().endsWith(".conf")).sorted().toList();
    }
    assertThat(files).hasSizeGreaterThanOrEqualTo(16);
    for (Path f : files) {
      ParseResult r = KeepalivedConfig.parse(f);
      assertThat(r.warnings()).as(f.toString()).isEmpty();
      VirtualServer vs = r.config().virtualServers().get(0);
      // "fallback-layered.conf": the algorithm of its virtual_server's own director.
      String algo = f.getFileName().toString().replace(".conf", "").replaceFirst("-.*", "");
      assertThat(vs.scheduling().scheduler().keyword()).as(f.toString()).isEqualTo(algo);
      Plan plan = PlanBuilder.build(r.config());
      ServicePlan sp = plan.services().get(0);
      ListenerSpec spec = ListenerSpec.of(sp, sp.services().get(0).key());
      assertThat(spec.selection()).as(f.toString()).isEqualTo(sp.selection());
      assertThat(spec.sorryServer()).as(f + " names its sorry server for overflow").isNotNull();
    }
  }
}
