package io.videoedge.agent.testing;

import io.videoedge.agent.apply.ApplyEngine;
import io.videoedge.agent.apply.Appliers;
import io.videoedge.agent.apply.Journal;
import io.videoedge.agent.apply.Validator;
import io.videoedge.agent.host.CommandRunner;
import io.videoedge.agent.host.HostFs;
import io.videoedge.agent.probe.Prober;
import java.nio.file.Path;
import java.time.Clock;

/** An engine wired as in production, over a fake tree and fake commands. */
public final class Agents {
  private Agents() {
  }

  public static ApplyEngine engine(FakeNode node, CommandRunner runner, Path journal) {
    HostFs fs = new HostFs(node.root());
    return new ApplyEngine(new Prober(fs, runner), new Appliers(fs, runner), new Validator(fs),
        Journal.open(journal, Clock.systemUTC()));
  }
}
