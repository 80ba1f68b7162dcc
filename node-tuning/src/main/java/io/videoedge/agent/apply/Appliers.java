package io.videoedge.agent.apply;

import io.videoedge.agent.host.CommandRunner;
import io.videoedge.agent.host.HostFs;
import io.videoedge.agent.plan.SettingKind;

/** The applier for each kind of setting. */
public final class Appliers {
    private final FileApplier files;
    private final EthtoolApplier ethtool;
    private final ModuleApplier modules;

    public Appliers(HostFs fs, CommandRunner runner) {
        this.files = new FileApplier(fs);
        this.ethtool = new EthtoolApplier(runner);
        this.modules = new ModuleApplier(fs, runner);
    }

    public Applier of(SettingKind kind) {
        return switch (kind) {
            case MODULE -> modules;
            case ETHTOOL_CHANNELS, ETHTOOL_FEATURE, ETHTOOL_COALESCE -> ethtool;
            case SYSCTL, IRQ_AFFINITY, RPS_CPUS, RPS_FLOW_CNT, CPUSET -> files;
        };
    }
}
