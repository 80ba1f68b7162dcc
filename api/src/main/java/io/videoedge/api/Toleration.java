package io.videoedge.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.TolerationBuilder;

/**
 * A toleration of the edge server pods, as Kubernetes takes it in a pod template: the CRD checks it as the API
 * server would check the pod (its fields are bounded, so that the rules fit the CRD's cost budget), so an
 * admitted VideoEdge never has its DaemonSet refused.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
        value = "(has(self.key) && self.key != '') || (has(self.operator) && self.operator == 'Exists')",
        message = "a toleration without a key must have operator Exists (it then tolerates every taint)")
@ValidationRule(
        value = "!has(self.operator) || self.operator != 'Exists' || !has(self.value) || self.value == ''",
        fieldPath = ".value",
        message = "a toleration with operator Exists takes no value")
@ValidationRule(
        value = "!has(self.tolerationSeconds) || (has(self.effect) && self.effect == 'NoExecute')",
        fieldPath = ".tolerationSeconds",
        message = "tolerationSeconds goes with effect NoExecute only")
@ValidationRule(
        value = "!has(self.key) || !self.key.contains('/') || self.key.matches('^[^/]{1,253}/')",
        fieldPath = ".key",
        message = "a toleration key's prefix (before /) is at most 253 characters")
public record Toleration(
        @JsonPropertyDescription("The taint key it matches, a label key; empty (with operator Exists): every taint.")
        @Size(max = 317)
        @Pattern("^$|" + VideoEdgeApi.LABEL_KEY_PATTERN)
        String key,

        @JsonPropertyDescription("Equal (the default: the taint's value must be value) or Exists (any value).")
        @Pattern("^(|Equal|Exists)$")
        String operator,

        @JsonPropertyDescription("The taint value it matches with operator Equal, a label value.")
        @Size(max = 63)
        @Pattern(VideoEdgeApi.LABEL_VALUE_PATTERN)
        String value,

        @JsonPropertyDescription("The taint effect it matches: NoSchedule, PreferNoSchedule or NoExecute; empty: all.")
        @Pattern("^(|NoSchedule|PreferNoSchedule|NoExecute)$")
        String effect,

        @JsonPropertyDescription(
                "With effect NoExecute: how long the pod stays bound after the taint is added (seconds); unset: "
                        + "for ever.")
        Long tolerationSeconds) {

    /** The toleration in the pod template. */
    public io.fabric8.kubernetes.api.model.Toleration toPod() {
        return new TolerationBuilder()
                .withKey(key)
                .withOperator(operator)
                .withValue(value)
                .withEffect(effect)
                .withTolerationSeconds(tolerationSeconds)
                .build();
    }
}
