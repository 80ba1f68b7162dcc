package io.videoedge.operator.rollout;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.videoedge.api.NodeTuning;
import io.videoedge.operator.render.Names;
import io.videoedge.operator.render.TuningInputs;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the rollout remembers about one node, kept on that node's NodeTuning (annotation
 * {@value Names#ROLLOUT_STATE}) so that it survives an operator restart and needs no other store:
 * which revision the node's turn was for and when it started, whether the node failed that
 * revision, and the last tuning the node ran healthily (for autoRevert and to tell a regression).
 *
 * @param target the rollout revision (tuning-pod) of the node's current or last turn
 * @param startedAt when that turn started (RFC 3339; none when the node needed no turn)
 * @param doneAt when the node was updated to {@code target}: tuned and serving past the soak time
 * @param failedAt when the node failed {@code target}, if it did
 * @param failure why it failed
 * @param lastGood the last tuning this node ran tuned and serving for the soak time
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record NodeRolloutState(
        String target, String startedAt, String doneAt, String failedAt, String failure, LastGood lastGood) {
    static final NodeRolloutState NONE = new NodeRolloutState(null, null, null, null, null, null);
    private static final Logger log = LoggerFactory.getLogger(NodeRolloutState.class);
    private static final ObjectMapper JSON = JsonMapper.builder()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .build();

    /**
     * @param revision the tuning revision (NodeTuning annotation {@value Names#TUNING_REVISION})
     * @param tuning what that revision's NodeTuning carried
     * @param applied the settings the agent reported Applied or Unchanged then: one of them turning
     *     Unsupported or Failed in a later revision is a regression
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record LastGood(String revision, TuningInputs tuning, List<String> applied) {}

    /** The state on this NodeTuning; none when it has none (or an unreadable one, which is then rebuilt). */
    public static NodeRolloutState of(NodeTuning nt) {
        Map<String, String> annotations = nt == null ? null : nt.getMetadata().getAnnotations();
        String json = annotations == null ? null : annotations.get(Names.ROLLOUT_STATE);
        if (json == null || json.isBlank()) {
            return NONE;
        }
        try {
            return JSON.readValue(json, NodeRolloutState.class);
        } catch (JsonProcessingException e) {
            // edited by hand, say: the node is planned as one without a rollout memory (outdated, no last good
            // tuning) and the pass writes a readable state back
            log.atWarn()
                    .addKeyValue("nodeTuning", nt.getMetadata().getName())
                    .addKeyValue("annotation", Names.ROLLOUT_STATE)
                    .addKeyValue("error", e.getOriginalMessage())
                    .log("unreadable rollout state on a NodeTuning: started afresh (no turn, no last good tuning)");
            return NONE;
        }
    }

    public String toJson() {
        try {
            return JSON.writeValueAsString(this);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Its turn for this revision started and is not over: not done, not failed. */
    boolean inTurnFor(String key) {
        return Objects.equals(target, key) && doneAt == null && failedAt == null;
    }

    boolean doneFor(String key) {
        return Objects.equals(target, key) && doneAt != null;
    }

    boolean failedFor(String key) {
        return Objects.equals(target, key) && failedAt != null;
    }

    Instant started() {
        return startedAt == null ? Instant.EPOCH : Instant.parse(startedAt);
    }

    NodeRolloutState start(String key, Instant now) {
        return new NodeRolloutState(key, now.toString(), null, null, null, lastGood);
    }

    /** Updated to {@code key}: in its turn, or without one (it had the revision already). */
    NodeRolloutState done(String key, Instant now) {
        return new NodeRolloutState(
                key, Objects.equals(target, key) ? startedAt : null, now.toString(), null, null, lastGood);
    }

    NodeRolloutState fail(Instant now, String why) {
        return new NodeRolloutState(target, startedAt, null, now.toString(), why, lastGood);
    }

    /** Its turn called off before anything on the node changed: no turn, its last good tuning kept. */
    NodeRolloutState withdrawn() {
        return new NodeRolloutState(null, null, null, null, null, lastGood);
    }

    NodeRolloutState withLastGood(LastGood good) {
        return new NodeRolloutState(target, startedAt, doneAt, failedAt, failure, good);
    }
}
