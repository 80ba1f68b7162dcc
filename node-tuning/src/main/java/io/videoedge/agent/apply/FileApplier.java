package io.videoedge.agent.apply;

import io.videoedge.agent.host.HostFs;
import io.videoedge.agent.plan.Setting;
import java.io.IOException;
import java.util.Optional;

/** sysctls, IRQ affinity, RPS/RFS and cpuset files: one value per file under the host root. */
public final class FileApplier implements Applier {
    private final HostFs fs;

    public FileApplier(HostFs fs) {
        this.fs = fs;
    }

    @Override
    public Optional<String> read(Setting s) throws IOException {
        return fs.exists(s.target()) ? Optional.of(fs.read(s.target()).strip()) : Optional.empty();
    }

    @Override
    public void write(Setting s, String value) throws IOException {
        try {
            fs.write(s.target(), value);
        } catch (IOException e) {
            // the kernel's refusal (EINVAL, EIO for managed IRQs) is the useful part
            throw new IOException("write " + value + " to /" + s.target() + ": " + e.getMessage(), e);
        }
    }
}
