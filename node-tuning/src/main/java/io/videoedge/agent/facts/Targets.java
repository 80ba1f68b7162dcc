package io.videoedge.agent.facts;

import java.util.List;

/**
 * Where a spec's objects are on a node: the interfaces it tunes and the file of a sysctl. The rules the prober (which
 * reads the current values of exactly these) and the planner (which writes them) share, kept here so neither imports
 * the other.
 */
public final class Targets {
    private Targets() {}

    /** The interfaces a spec tunes: those it names, else the default route's (none without one). */
    public static List<String> interfaces(List<String> named, String defaultRoute) {
        return named.isEmpty() && defaultRoute != null ? List.of(defaultRoute) : named;
    }

    /** proc/sys path (root-relative) of a dotted sysctl name. */
    public static String sysctlPath(String name) {
        return "proc/sys/" + name.replace('.', '/');
    }
}
