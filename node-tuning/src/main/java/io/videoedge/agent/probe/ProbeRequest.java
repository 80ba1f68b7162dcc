package io.videoedge.agent.probe;

import java.util.List;
import java.util.Set;

/**
 * What to read besides the fixed facts: the interfaces, sysctls and pod the spec touches.
 *
 * @param interfaces interfaces named by the spec; empty = the default route's
 */
public record ProbeRequest(List<String> interfaces, Set<String> sysctls, String podUid) {
    /**
     * The interfaces a spec tunes: those it names, else the default route's. The one rule the prober
     * (which reads the current values of exactly these) and the planner (which tunes them) share.
     */
    public static List<String> tunedInterfaces(List<String> named, String defaultRoute) {
        return named.isEmpty() && defaultRoute != null ? List.of(defaultRoute) : named;
    }
}
