package io.videoedge.agent.apply;

import io.videoedge.agent.host.CommandRunner;
import io.videoedge.agent.plan.Setting;
import io.videoedge.agent.plan.SettingKind;
import io.videoedge.agent.probe.EthtoolParser;
import io.videoedge.agent.probe.NicFacts;
import java.io.IOException;
import java.util.List;
import java.util.Optional;

/** NIC channels (ethtool -l/-L) and interrupt coalescing (ethtool -c/-C). */
public final class EthtoolApplier implements Applier {
  private final CommandRunner runner;

  public EthtoolApplier(CommandRunner runner) {
    this.runner = runner;
  }

  @Override
  public Optional<String> read(Setting s) throws IOException {
    boolean channels = s.kind() == SettingKind.ETHTOOL_CHANNELS;
    CommandRunner.Result r = runner.run(List.of("ethtool", channels ? "-l" : "-c", s.target()));
    if (!r.ok()) {
      if (r.stderr().contains("No such device") || r.stdout().contains("No such device")) {
        return Optional.empty();
      }
      throw new IOException("ethtool " + (channels ? "-l " : "-c ") + s.target() + ": " + r.error());
    }
    if (channels) {
      NicFacts.Channels ch = EthtoolParser.channels(r.stdout());
      Integer v = switch (s.param()) {
        case "combined" -> ch.combined();
        case "rx" -> ch.rx();
        case "tx" -> ch.tx();
        default -> throw new IllegalArgumentException(s.param());
      };
      return Optional.ofNullable(v).map(String::valueOf);
    }
    return Optional.ofNullable(EthtoolParser.coalescing(r.stdout()).get(s.param()));
  }

  @Override
  public void write(Setting s, String value) throws IOException {
    String flag = s.kind() == SettingKind.ETHTOOL_CHANNELS ? "-L" : "-C";
    CommandRunner.Result r = runner.run(List.of("ethtool", flag, s.target(), s.param(), value));
    // only called for a value that differs, so a non-zero exit is a refusal, never "unchanged"
    if (!r.ok()) {
      throw new IOException("ethtool " + flag + " " + s.target() + " " + s.param() + " " + value + ": " + r.error());
    }
  }
}
