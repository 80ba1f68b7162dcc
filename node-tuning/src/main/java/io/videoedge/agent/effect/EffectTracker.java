package io.videoedge.agent.effect;

import java.time.Duration;
import java.time.Instant;

/**
 * Before and after: keeps the traffic window that ended when the agent last changed the node and the first window
 * after it that is at least {@code minAfter} long. Fed the counters read at the start of every pass; pure apart from
 * the state it keeps (no I/O, no clock of its own).
 */
public final class EffectTracker {
    private final Duration minAfter;
    private TrafficCounters last;
    private TrafficCounters appliedAt;
    private Effect effect;

    /** The windows to report, each with the time it ended; after is null until it has been long enough. */
    public record Effect(Window before, Window after) {}

    public record Window(Instant end, TrafficWindow traffic) {}

    public EffectTracker(Duration minAfter) {
        this.minAfter = minAfter;
    }

    /**
     * Counters read before a pass, and whether the pass then changed the node.
     *
     * @return the effect to report, or null before the first change this agent made
     */
    public Effect record(TrafficCounters now, boolean wrote, Instant at) {
        if (wrote) {
            // the window before: since the last sample at least minAfter old, or since boot for the first one
            TrafficCounters from = last == null ? now.atBoot() : last;
            effect = new Effect(new Window(at, TrafficWindow.between(from, now)), null);
            appliedAt = now;
        } else if (appliedAt != null && now.uptimeSeconds() - appliedAt.uptimeSeconds() >= minAfter.toSeconds()) {
            effect = new Effect(effect.before(), new Window(at, TrafficWindow.between(appliedAt, now)));
            appliedAt = null;
        }
        if (last == null || wrote || now.uptimeSeconds() - last.uptimeSeconds() >= minAfter.toSeconds()) {
            last = now; // windows shorter than minAfter say little: passes in between do not start a new one
        }
        return effect;
    }

    public Effect effect() {
        return effect;
    }
}
