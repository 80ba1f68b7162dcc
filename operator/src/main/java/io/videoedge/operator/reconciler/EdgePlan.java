package io.videoedge.operator.reconciler;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.videoedge.api.VideoEdge;
import io.videoedge.operator.OperatorSettings;
import io.videoedge.operator.render.EdgeServerConfigRenderer;
import io.videoedge.operator.render.JvmOptions;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;

/**
 * What the reconciler decided for one pass, handed to the dependents (each dependent's desired()
 * reads it): the rendered config and its checksum, the JVM flags, the nodes to tune, the nodes the
 * server must stay off, and the edge-server pod on each node.
 *
 * @param tuneNodes nodes whose NodeTuning is ours to write
 * @param excludedNodes nodes the selector matches but that are not (yet) ours: no server pod there
 * @param podsByNode our edge-server pod on each node, when there is one
 */
public record EdgePlan(OperatorSettings settings, String config, String configChecksum, String javaOptions,
    SortedMap<String, Node> tuneNodes, SortedSet<String> excludedNodes, Map<String, Pod> podsByNode) {
  static final String KEY = EdgePlan.class.getName();

  public static EdgePlan of(Context<VideoEdge> context) {
    return context.managedWorkflowAndDependentResourceContext().getMandatory(KEY, EdgePlan.class);
  }

  void putInto(Context<VideoEdge> context) {
    context.managedWorkflowAndDependentResourceContext().put(KEY, this);
  }

  public static EdgePlan plan(VideoEdge ve, OperatorSettings settings, SortedMap<String, Node> tuneNodes,
      SortedSet<String> excludedNodes, Map<String, Pod> podsByNode) {
    String config = EdgeServerConfigRenderer.render(Names.namespacedName(ve), ve.getSpec());
    String javaOptions = JvmOptions.forServer(ve.getSpec().server()).flags(settings.edgeServerJavaOptions());
    return new EdgePlan(settings, config, sha256(config), javaOptions, tuneNodes, excludedNodes, podsByNode);
  }

  static String sha256(String text) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
