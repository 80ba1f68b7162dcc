package io.videoedge.operator.dependent;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;
import java.util.List;

/**
 * The few fields of the Prometheus Operator's PodMonitor (monitoring.coreos.com/v1) the operator
 * writes. Typed, so that the client needs no API discovery for it: the CRD may not exist.
 */
@Group("monitoring.coreos.com")
@Version("v1")
@Kind("PodMonitor")
@Plural("podmonitors")
public class PodMonitor extends CustomResource<PodMonitor.Spec, Void> implements Namespaced {

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Spec(LabelSelector selector, List<Endpoint> podMetricsEndpoints) {}

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Endpoint(String port, String path, String interval) {}
}
