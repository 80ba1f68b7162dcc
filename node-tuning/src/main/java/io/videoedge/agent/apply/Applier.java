package io.videoedge.agent.apply;

import io.videoedge.agent.plan.Setting;
import java.io.IOException;
import java.util.Optional;

/** Reads and writes one kind of kernel interface. */
public interface Applier {
    /** The value now, or empty when the target is gone (queue removed, pod cgroup deleted). */
    Optional<String> read(Setting s) throws IOException;

    void write(Setting s, String value) throws IOException;
}
