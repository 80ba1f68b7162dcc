package io.videoedge.server;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** The server's shape: no package cycles, and no Kubernetes dependency. */
class ArchitectureTest {
    static final JavaClasses SERVER = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.videoedge.server");

    @Test
    void packagesHaveNoCycles() {
        slices().matching("io.videoedge.server.(*)..").should().beFreeOfCycles().check(SERVER);
    }

    @Test
    void theServerHasNoKubernetesDependency() {
        noClasses()
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("io.fabric8..", "io.javaoperatorsdk..")
                .check(SERVER);
    }
}
