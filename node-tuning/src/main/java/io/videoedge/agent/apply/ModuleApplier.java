package io.videoedge.agent.apply;

import io.videoedge.agent.host.CommandRunner;
import io.videoedge.agent.host.HostFs;
import io.videoedge.agent.plan.Setting;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Kernel modules: "loaded" (modprobe) or "absent" (modprobe -r, when restoring). */
public final class ModuleApplier implements Applier {
    private final HostFs fs;
    private final CommandRunner runner;

    public ModuleApplier(HostFs fs, CommandRunner runner) {
        this.fs = fs;
        this.runner = runner;
    }

    @Override
    public Optional<String> read(Setting s) {
        boolean loaded = fs.exists("sys/module/" + s.target())
                || (s.target().equals("tls")
                        && fs.readIfPresent("proc/sys/net/ipv4/tcp_available_ulp")
                                .orElse("")
                                .contains("tls"));
        return Optional.of(loaded ? "loaded" : "absent");
    }

    @Override
    public void write(Setting s, String value) throws IOException {
        List<String> cmd = new ArrayList<>(List.of("modprobe"));
        if (value.equals("absent")) {
            cmd.add("-r");
        }
        if (!fs.root().toString().equals("/")) {
            // the host's modules when the agent sees the host under a mount (/host): modprobe -d ROOT
            cmd.addAll(List.of("-d", fs.root().toString()));
        }
        cmd.add(s.target());
        CommandRunner.Result r = runner.run(cmd);
        if (!r.ok()) {
            throw new IOException(String.join(" ", cmd) + ": " + r.error());
        }
    }
}
