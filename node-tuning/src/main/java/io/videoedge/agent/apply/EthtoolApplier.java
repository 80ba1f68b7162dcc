package io.videoedge.agent.apply;

import io.videoedge.agent.facts.NicFacts;
import io.videoedge.agent.host.CommandRunner;
import io.videoedge.agent.plan.Setting;
import io.videoedge.agent.plan.SettingKind;
import io.videoedge.agent.probe.EthtoolParser;
import java.io.IOException;
import java.util.List;
import java.util.Optional;

/** NIC channels (ethtool -l/-L), interrupt coalescing (ethtool -c/-C) and features (ethtool -k/-K). */
public final class EthtoolApplier implements Applier {
    private final CommandRunner runner;

    public EthtoolApplier(CommandRunner runner) {
        this.runner = runner;
    }

    @Override
    public Optional<String> read(Setting s) throws IOException {
        String flag = switch (s.kind()) {
            case ETHTOOL_CHANNELS -> "-l";
            case ETHTOOL_FEATURE -> "-k";
            default -> "-c";
        };
        CommandRunner.Result r = runner.run(List.of("ethtool", flag, s.target()));
        if (!r.ok()) {
            if (r.stderr().contains("No such device") || r.stdout().contains("No such device")) {
                return Optional.empty();
            }
            throw new IOException("ethtool " + flag + " " + s.target() + ": " + r.error());
        }
        if (s.kind() == SettingKind.ETHTOOL_CHANNELS) {
            NicFacts.Channels ch = EthtoolParser.channels(r.stdout());
            Integer v = switch (s.param()) {
                case "combined" -> ch.combined();
                case "rx" -> ch.rx();
                case "tx" -> ch.tx();
                default -> throw new IllegalArgumentException(s.param());
            };
            return Optional.ofNullable(v).map(String::valueOf);
        }
        if (s.kind() == SettingKind.ETHTOOL_FEATURE) {
            // a feature the kernel no longer lists is gone, like a removed queue
            return Optional.ofNullable(EthtoolParser.feature(r.stdout(), s.param()))
                    .map(f -> f.on() ? "on" : "off");
        }
        return Optional.ofNullable(EthtoolParser.coalescing(r.stdout()).get(s.param()));
    }

    @Override
    public void write(Setting s, String value) throws IOException {
        String flag = switch (s.kind()) {
            case ETHTOOL_CHANNELS -> "-L";
            case ETHTOOL_FEATURE -> "-K";
            default -> "-C";
        };
        CommandRunner.Result r = runner.run(List.of("ethtool", flag, s.target(), s.param(), value));
        // only called for a value that differs, so a non-zero exit is a refusal, never "unchanged"
        // (-K: "Could not change any device features"; the read back catches a change the kernel undid)
        if (!r.ok()) {
            throw new IOException(
                    "ethtool " + flag + " " + s.target() + " " + s.param() + " " + value + ": " + r.error());
        }
    }
}
