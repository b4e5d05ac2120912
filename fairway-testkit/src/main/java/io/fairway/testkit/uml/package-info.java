/**
 * The user-mode Linux harness: {@link io.fairway.testkit.uml.Uml} boots a UML kernel with IPVS,
 * runs one command inside it and returns what it left behind, so tests exercise the real kernel
 * without root on the host and without touching the host's own tables.
 *
 * <p>It lives here, in the test support every module has in test scope, rather than in fairway-ipvs
 * whose kernel table it was first written for: the apply, director and daemon tests boot UML too,
 * and a test-jar of fairway-ipvs would give them its test classes and test dependencies with it.
 * Nothing here uses fairway-ipvs, which itself depends on this module for its tests.
 */
@NullMarked
package io.fairway.testkit.uml;

import org.jspecify.annotations.NullMarked;
