package io.videoedge.api;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * The user's intent: which nodes serve video, how their kernel and NIC are tuned, and how the
 * one-nio edge server runs there. The operator turns it into one {@link NodeTuning} per selected
 * node and a host-networked, core-pinned edge server.
 */
@Group(VideoEdgeApi.GROUP)
@Version(VideoEdgeApi.VERSION)
@ShortNames("ve")
@ValidationRule(
        value = "size(self.metadata.name) <= 63",
        message =
                "metadata.name: a VideoEdge's name is at most 63 characters: it is the value of the labels on every object made for it")
@AdditionalPrinterColumn(
        name = "Ready",
        jsonPath = ".status.conditions[?(@.type==\"Ready\")].status",
        type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Tuned", jsonPath = ".status.tuned", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Serving", jsonPath = ".status.serving", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Updated", jsonPath = ".status.updated", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "TLS", jsonPath = ".status.tls", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
        name = "Attention",
        jsonPath = ".status.nodes.needingAttention",
        type = AdditionalPrinterColumn.Type.INTEGER,
        priority = 1)
@AdditionalPrinterColumn(
        name = "Age",
        jsonPath = ".metadata.creationTimestamp",
        type = AdditionalPrinterColumn.Type.DATE)
public class VideoEdge extends CustomResource<VideoEdgeSpec, VideoEdgeStatus> implements Namespaced {}
