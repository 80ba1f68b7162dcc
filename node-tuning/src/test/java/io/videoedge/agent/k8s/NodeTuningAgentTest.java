package io.videoedge.agent.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import io.videoedge.agent.apply.PassResult;
import io.videoedge.agent.k8s.NodeTuningAgent.NoteEvent;
import io.videoedge.agent.plan.Plan;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The agent's decisions that need no API server (the rest is NodeTuningAgentIT). */
class NodeTuningAgentTest {
    static final String RELEASED = "sysctl/vm.swappiness: no longer asked for, original 60 restored";
    static final String PUT_BACK = "irq/eth0/33: moved to 0 by the driver on the queue change, put back to 1";

    private static PassResult pass(boolean wrote, List<String> released, List<String> irqsPutBack) {
        return new PassResult(
                PassResult.Outcome.APPLIED,
                new Plan(List.of()),
                null,
                List.of(),
                wrote,
                null,
                released,
                irqsPutBack,
                Map.of());
    }

    @Test
    void aPassNoteBecomesAnEventWithTheReasonOfItsKind() {
        assertThat(NodeTuningAgent.noteEvents(pass(true, List.of(RELEASED), List.of(PUT_BACK))))
                .containsExactly(new NoteEvent("Released", RELEASED), new NoteEvent("IrqPutBack", PUT_BACK));
    }

    /** A pass that only released (it wrote nothing of its plan) still says so; a retry saying the same does not. */
    @Test
    void notesAreRecordedWhateverThePassWroteButNotRepeated() {
        PassResult releaseOnly = pass(false, List.of(RELEASED), List.of(PUT_BACK));
        List<NoteEvent> recorded = NodeTuningAgent.notesToRecord(releaseOnly, List.of());
        assertThat(recorded).hasSize(2);
        assertThat(NodeTuningAgent.notesToRecord(releaseOnly, recorded)).isEmpty();
        assertThat(NodeTuningAgent.notesToRecord(pass(false, List.of(), List.of()), recorded))
                .isEmpty();
    }
}
