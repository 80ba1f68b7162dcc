package io.videoedge.operator;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The operator's shape: no package cycles, and the decisions (what to render, which node's turn,
 * who owns a node, how a node stands) apart from the effects (the API client, JOSDK's runtime).
 */
class ArchitectureTest {
    static final JavaClasses OPERATOR = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.videoedge.operator");

    @Test
    void packagesHaveNoCycles() {
        slices().matching("io.videoedge.operator.(*)..")
                .should()
                .beFreeOfCycles()
                .check(OPERATOR);
    }

    @Test
    void decisionsArePure() {
        noClasses()
                .that()
                .resideInAnyPackage(
                        "..operator.render..", "..operator.rollout..", "..operator.placement..", "..operator.health..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("io.fabric8.kubernetes.client..", "io.javaoperatorsdk..")
                .because("they decide; the reconciler and the dependents act")
                .check(OPERATOR);
    }

    @Test
    void purgeDecisionsArePure() {
        noClasses()
                .that()
                .haveSimpleName("PurgeProgress")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("io.fabric8.kubernetes.client..", "io.javaoperatorsdk..", "java.net..")
                .because("it decides; CachePurgeReconciler and NodePurgeClient act")
                .check(OPERATOR);
    }

    @Test
    void nothingBelowTheTopPackageDependsOnIt() {
        noClasses()
                .that()
                .resideInAnyPackage("io.videoedge.operator.(*)..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("io.videoedge.operator")
                .check(OPERATOR);
    }
}
