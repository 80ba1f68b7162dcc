package io.videoedge.operator.testing;

import io.fabric8.kubernetes.client.utils.Serialization;
import io.videoedge.api.VideoEdge;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Files of the repository the tests read: examples, golden files, CRDs (tests run in operator/). */
public final class TestFiles {
    public static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    private TestFiles() {}

    public static String read(String relative) {
        try {
            return Files.readString(ROOT.resolve(relative));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** examples/videoedge.yaml as the API server would return it: CRD defaults applied, metadata filled. */
    public static VideoEdge exampleVideoEdge(String namespace, long generation) {
        VideoEdge ve = CrdDefaulting.videoEdges()
                .apply(Serialization.unmarshal(read("examples/videoedge.yaml"), VideoEdge.class));
        ve.getMetadata().setNamespace(namespace);
        ve.getMetadata().setUid("8a1c6f0e-0000-4000-8000-000000000001");
        ve.getMetadata().setGeneration(generation);
        ve.getMetadata().setCreationTimestamp("2026-01-01T00:00:00Z");
        return ve;
    }

    /**
     * Compares with a golden file; with -Dgolden.update=true rewrites it instead (then review the diff).
     * Returns the golden text.
     */
    public static String golden(String relative, String actual) {
        Path file = ROOT.resolve(relative);
        try {
            if (Boolean.getBoolean("golden.update")) {
                Files.createDirectories(file.getParent());
                Files.writeString(file, actual);
            }
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
