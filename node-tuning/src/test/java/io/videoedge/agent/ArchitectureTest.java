package io.videoedge.agent;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** The agent's shape: no package cycles, and the plan (what to change) apart from the effects. */
class ArchitectureTest {
    static final JavaClasses AGENT = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.videoedge.agent");

    @Test
    void packagesHaveNoCycles() {
        slices().matching("io.videoedge.agent.(*)..").should().beFreeOfCycles().check(AGENT);
    }

    @Test
    void thePlanIsPure() {
        noClasses()
                .that()
                .resideInAPackage("..agent.plan..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "..agent.apply..", "..agent.host..", "..agent.k8s..", "io.fabric8.kubernetes.client..")
                .check(AGENT);
    }
}
