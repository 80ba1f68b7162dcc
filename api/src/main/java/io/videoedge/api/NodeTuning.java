package io.videoedge.api;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * The tuning of one node, named after the node (cluster-scoped). The operator renders the spec
 * from the {@link VideoEdge} that selects the node; that node's agent applies it and writes the
 * status: every value applied with the original it replaced, drift, errors, capabilities.
 */
@Group(VideoEdgeApi.GROUP)
@Version(VideoEdgeApi.VERSION)
@ShortNames("nt")
@AdditionalPrinterColumn(
        name = "Applied",
        jsonPath = ".status.conditions[?(@.type==\"Applied\")].status",
        type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
        name = "Degraded",
        jsonPath = ".status.conditions[?(@.type==\"Degraded\")].status",
        type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Message", jsonPath = ".status.message", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
        name = "Age",
        jsonPath = ".metadata.creationTimestamp",
        type = AdditionalPrinterColumn.Type.DATE)
public class NodeTuning extends CustomResource<NodeTuningSpec, NodeTuningStatus> {}
