package io.videoedge.api.build;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceColumnDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.videoedge.api.NodeTuning;
import io.videoedge.api.VideoEdge;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * Writes the CRDs the Fabric8 generator produced into crds/, with one change: printer columns in
 * the order the resource class declares them (the generator sorts them by JSONPath, which puts AGE
 * first). Run by `make crds` (Maven profile `crds`). Every further argument is another directory
 * that gets the same files (the Helm chart's copy).
 */
public final class CrdWriter {
    private static final String HEADER = "# Generated from the Java model in api/ by `make crds`. Do not edit.\n";

    public static void main(String[] args) throws IOException {
        Path generated = Path.of(args[0]);
        for (int i = 1; i < args.length; i++) {
            Path out = Path.of(args[i]);
            Files.createDirectories(out);
            write(
                    generated.resolve("videoedges.videoedge.io-v1.yml"),
                    VideoEdge.class,
                    out.resolve("videoedge.io_videoedges.yaml"));
            write(
                    generated.resolve("nodetunings.videoedge.io-v1.yml"),
                    NodeTuning.class,
                    out.resolve("videoedge.io_nodetunings.yaml"));
            write(
                    generated.resolve("cachepurges.videoedge.io-v1.yml"),
                    io.videoedge.api.CachePurge.class,
                    out.resolve("videoedge.io_cachepurges.yaml"));
        }
    }

    private static void write(Path generated, Class<?> resource, Path target) throws IOException {
        CustomResourceDefinition crd =
                Serialization.unmarshal(Files.readString(generated), CustomResourceDefinition.class);
        List<String> declared = Arrays.stream(resource.getAnnotationsByType(AdditionalPrinterColumn.class))
                .map(AdditionalPrinterColumn::name)
                .toList();
        for (CustomResourceDefinitionVersion version : crd.getSpec().getVersions()) {
            version.getAdditionalPrinterColumns()
                    .sort(Comparator.comparingInt((CustomResourceColumnDefinition c) -> declared.indexOf(c.getName())));
        }
        Files.writeString(target, HEADER + Serialization.asYaml(crd).replaceFirst("^---\n", ""));
    }

    private CrdWriter() {}
}
