package io.fairway.daemon;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.Test;

/**
 * No package cycle in Fairway's main code. The daemon's classpath holds every module it runs (Maven
 * forbids cycles between modules, so a cycle is always inside one). A Javadoc {@code @link} counts
 * as an edge too: name a class in a package that must not be imported with {@code @code}.
 */
class PackageCycleTest {
  static final JavaClasses MAIN =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          // Fairway's own modules arrive as jars in a reactor build past 'package': keep those,
          // leave out every third-party jar and the test jars.
          .withImportOption(
              l -> !l.isJar() || (l.contains("/fairway-") && !l.contains("-tests.jar")))
          .importPackages("io.fairway");

  @Test
  void noPackageCycle() {
    ArchRule rule = slices().matching("io.fairway.(**)").should().beFreeOfCycles();
    rule.check(MAIN);
  }
}
