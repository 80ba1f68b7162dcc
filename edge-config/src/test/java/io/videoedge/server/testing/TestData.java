package io.videoedge.server.testing;

import java.nio.file.Files;
import java.nio.file.Path;

/** Where the checked-in test data lives (testdata/edge-server at the repository root). */
public final class TestData {
    private TestData() {}

    public static Path dir() {
        String configured = System.getProperty("videoedge.testdata");
        Path dir = configured != null ? Path.of(configured) : Path.of("..", "testdata", "edge-server");
        if (!Files.isDirectory(dir)) {
            throw new IllegalStateException("test data directory not found: " + dir.toAbsolutePath());
        }
        return dir;
    }

    public static Path goldenConfig() {
        return dir().resolve("edge-server.yaml");
    }
}
