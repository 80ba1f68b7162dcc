package io.videoedge.server.tls;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KernelTlsTest {
    @Test
    void readsTheUlpListWhenThereIsOne(@TempDir Path dir) throws Exception {
        Path ulps = Files.writeString(dir.resolve("ulp"), "mptcp tls\n");
        assertThat(KernelTls.kernelSupport(ulps, dir.resolve("none"))).isEqualTo("available");
        Files.writeString(ulps, "mptcp\n");
        assertThat(KernelTls.kernelSupport(ulps, dir.resolve("none"))).isEqualTo("unavailable");
    }

    @Test
    void outsideTheInitialNetworkNamespaceALoadedModuleIsTheEvidence(@TempDir Path dir) throws Exception {
        Path missing = dir.resolve("no-ulp-list");
        assertThat(KernelTls.kernelSupport(missing, dir.resolve("tls"))).isEqualTo("unavailable");
        Files.createDirectory(dir.resolve("tls"));
        assertThat(KernelTls.kernelSupport(missing, dir.resolve("tls"))).isEqualTo("available");
    }
}
