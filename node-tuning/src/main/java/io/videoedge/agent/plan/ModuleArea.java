package io.videoedge.agent.plan;

import io.videoedge.agent.facts.NodeFacts;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;

/** Kernel modules (tuning.kernelModules; tls for kernel TLS): loaded with modprobe. */
final class ModuleArea implements TuningArea {

    @Override
    public List<Setting> plan(Stage stage, Desired d, NodeFacts f) {
        if (stage != Stage.MODULES) {
            return List.of();
        }
        List<Setting> out = new ArrayList<>();
        for (String m : new LinkedHashSet<>(d.kernelModules())) {
            String name = "module/" + m;
            boolean loaded = f.loadedModules().contains(m) || (m.equals("tls") && f.tlsUlp());
            if (loaded) {
                out.add(Setting.module(m, "loaded"));
            } else if (!f.loadableModules().contains(m)) {
                out.add(Setting.unsupported(
                        name,
                        "loaded",
                        "absent",
                        "module " + m + " is not built for kernel " + f.kernel() + " (nothing under /lib/modules/"
                                + f.kernel() + ")"
                                + (m.equals("tls")
                                        ? ": kernel TLS unavailable, the server falls back to userspace TLS (OpenSSL)"
                                        : "")));
            } else if (!f.modprobeAvailable()) {
                out.add(Setting.unsupported(name, "loaded", "absent", "modprobe not found"));
            } else {
                out.add(Setting.module(m, "absent"));
            }
        }
        return out;
    }
}
