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

    /**
     * The planner and the prober share only the node's facts and the rules in {@code facts} (which interfaces a spec
     * tunes, where a sysctl lives): neither imports the other.
     */
    @Test
    void planAndProbeDoNotImportEachOther() {
        noClasses()
                .that()
                .resideInAPackage("..agent.plan..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("..agent.probe..")
                .check(AGENT);
        noClasses()
                .that()
                .resideInAPackage("..agent.probe..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("..agent.plan..")
                .check(AGENT);
    }

    /** The traffic effect (parsers, windows, before and after) is pure: /proc is read by the probe. */
    @Test
    void theEffectIsPure() {
        noClasses()
                .that()
                .resideInAPackage("..agent.effect..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "..agent.probe..",
                        "..agent.apply..",
                        "..agent.host..",
                        "..agent.k8s..",
                        "java.nio.file..",
                        "io.fabric8.kubernetes.client..")
                .check(AGENT);
    }

    /** The facts are data and the rules on them: they depend on no other part of the agent. */
    @Test
    void factsDependOnNoOtherPart() {
        noClasses()
                .that()
                .resideInAPackage("..agent.facts..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "..agent.plan..",
                        "..agent.probe..",
                        "..agent.apply..",
                        "..agent.host..",
                        "..agent.k8s..",
                        "..agent.report..")
                .check(AGENT);
    }
}
