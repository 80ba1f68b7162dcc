package io.videoedge.agent.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import io.videoedge.agent.apply.PassResult;
import io.videoedge.agent.k8s.NodeTuningAgent.NoteEvent;
import io.videoedge.agent.plan.Plan;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The agent's decisions that need no API server (the rest is NodeTuningAgentIT). */
class NodeTuningAgentTest {
    static final String RELEASED = "sysctl/vm.swappiness: no longer asked for, original 60 restored";
    static final String RELEASE_FAILED =
            "sysctl/vm.swappiness: no longer asked for, restoring 60 failed: Permission denied";
    static final String PUT_BACK = "irq/eth0/33: moved to 0 by the driver on the queue change, put back to 1";

    private static PassResult pass(boolean wrote, List<String> released, List<String> irqsPutBack) {
        return pass(wrote, released, irqsPutBack, List.of());
    }

    private static PassResult pass(
            boolean wrote, List<String> released, List<String> irqsPutBack, List<String> problems) {
        return new PassResult(
                PassResult.Outcome.APPLIED,
                new Plan(List.of()),
                null,
                List.of(),
                wrote,
                null,
                released,
                irqsPutBack,
                problems,
                Map.of());
    }

    @Test
    void aPassNoteBecomesAnEventWithTheReasonOfItsKindAndAWarningWhenItSaysSomethingFailed() {
        assertThat(NodeTuningAgent.noteEvents(
                        pass(true, List.of(RELEASED, RELEASE_FAILED), List.of(PUT_BACK), List.of(RELEASE_FAILED))))
                .containsExactly(
                        new NoteEvent("Released", RELEASED, false),
                        new NoteEvent("Released", RELEASE_FAILED, true),
                        new NoteEvent("IrqPutBack", PUT_BACK, false));
    }

    /** A pass that only released (it wrote nothing of its plan) still says so; a retry saying the same does not. */
    @Test
    void notesAreRecordedWhateverThePassWroteButNotRepeated() {
        List<NoteEvent> releaseOnly = NodeTuningAgent.noteEvents(pass(false, List.of(RELEASED), List.of(PUT_BACK)));
        assertThat(releaseOnly).hasSize(2);
        assertThat(NodeTuningAgent.notesToRecord(releaseOnly, List.of())).isEqualTo(releaseOnly);
        assertThat(NodeTuningAgent.notesToRecord(releaseOnly, releaseOnly)).isEmpty();
    }

    /**
     * Notes are weighed one by one: a failure retried is not said again when another note comes or goes beside it,
     * and one that went away and comes back is said again.
     */
    @Test
    void aNoteIsRecordedUnlessThePreviousPassHadItRecorded() {
        List<NoteEvent> failing =
                NodeTuningAgent.noteEvents(pass(false, List.of(RELEASE_FAILED), List.of(), List.of(RELEASE_FAILED)));
        List<NoteEvent> failingAndPutBack = NodeTuningAgent.noteEvents(
                pass(false, List.of(RELEASE_FAILED), List.of(PUT_BACK), List.of(RELEASE_FAILED)));
        assertThat(NodeTuningAgent.notesToRecord(failingAndPutBack, failing))
                .containsExactly(new NoteEvent("IrqPutBack", PUT_BACK, false));
        assertThat(NodeTuningAgent.notesToRecord(failing, failingAndPutBack)).isEmpty();
        List<NoteEvent> putBackOnly = NodeTuningAgent.noteEvents(pass(false, List.of(), List.of(PUT_BACK)));
        assertThat(NodeTuningAgent.notesToRecord(failing, putBackOnly))
                .as("said again after a pass without it")
                .isEqualTo(failing);
    }

    /** A note whose Event the API server did not take is recorded by the next pass that still has it. */
    @Test
    void aNoteWhoseEventWasLostIsRecordedByTheNextPass() {
        List<NoteEvent> notes = NodeTuningAgent.noteEvents(
                pass(false, List.of(RELEASE_FAILED), List.of(PUT_BACK), List.of(RELEASE_FAILED)));
        List<NoteEvent> tried = new ArrayList<>();
        List<NoteEvent> remembered = NodeTuningAgent.record(notes, List.of(), e -> {
            tried.add(e);
            return !e.warning(); // the Warning is lost
        });
        assertThat(tried).isEqualTo(notes);
        assertThat(remembered).containsExactly(new NoteEvent("IrqPutBack", PUT_BACK, false));

        tried.clear();
        assertThat(NodeTuningAgent.record(notes, remembered, e -> tried.add(e))).isEqualTo(notes);
        assertThat(tried).containsExactly(new NoteEvent("Released", RELEASE_FAILED, true));
    }
}
