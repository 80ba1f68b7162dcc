package io.videoedge.agent.effect;

import java.time.Duration;
import java.time.Instant;

/**
 * Before and after: keeps the traffic window that ended when the agent last applied a change of its plan and the
 * first window after it that is at least {@code minAfter} long. Fed the counters read at the start of every pass;
 * pure apart from the state it keeps (no I/O, no clock of its own).
 */
public final class EffectTracker {
    private final Duration minAfter;
    private TrafficCounters last; // the newest sample that starts a window (see record)
    private TrafficCounters earlier; // the one before it, at least minAfter older (null after a change)
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
            effect = new Effect(new Window(at, TrafficWindow.between(windowStart(now), now)), null);
            appliedAt = now;
        } else if (appliedAt != null && longEnough(appliedAt, now)) {
            effect = new Effect(effect.before(), new Window(at, TrafficWindow.between(appliedAt, now)));
            appliedAt = null;
        }
        if (wrote) {
            earlier = null; // what came before the change says nothing about the node after it
            last = now;
        } else if (last == null || longEnough(last, now)) {
            earlier = last; // windows shorter than minAfter say little: passes in between start none
            last = now;
        }
        return effect;
    }

    /**
     * Where the window before a change starts: the newest kept sample at least minAfter old (samples are kept
     * at least minAfter apart, so the window is minAfter to twice that long); the oldest one kept when none is
     * (the agent changed the node, or started, less than minAfter ago); since boot before the first sample.
     */
    private TrafficCounters windowStart(TrafficCounters now) {
        if (last == null) return now.atBoot();
        if (longEnough(last, now)) return last;
        return earlier != null ? earlier : last; // earlier is at least minAfter older than last
    }

    private boolean longEnough(TrafficCounters from, TrafficCounters to) {
        return to.uptimeSeconds() - from.uptimeSeconds() >= minAfter.toSeconds();
    }

    public Effect effect() {
        return effect;
    }
}
