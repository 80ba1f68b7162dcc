package io.videoedge.agent.facts;

import java.util.List;
import java.util.Set;

/**
 * What to read besides the fixed facts: the interfaces, sysctls and pod the spec touches.
 *
 * @param interfaces interfaces named by the spec; empty = the default route's
 */
public record ProbeRequest(List<String> interfaces, Set<String> sysctls, String podUid) {}
