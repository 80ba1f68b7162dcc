package io.videoedge.agent.plan;

import io.videoedge.agent.facts.NicFacts;
import io.videoedge.agent.facts.NodeFacts;
import io.videoedge.agent.facts.Targets;
import io.videoedge.api.NicSpec;
import io.videoedge.api.NicType;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The NICs' own settings, through ethtool: the queue count (-L), TLS TX offload (-K) and interrupt coalescing (-C);
 * and the interfaces the spec names that the node lacks.
 */
final class NicArea implements TuningArea {

    /** The tuned interfaces this node has (those the spec names, else the default route's). */
    static List<NicFacts> tuned(Desired d, NodeFacts f) {
        return Targets.interfaces(d.interfaces(), f.defaultRouteInterface()).stream()
                .map(n -> f.nics().get(n))
                .filter(Objects::nonNull)
                .toList();
    }

    @Override
    public List<Setting> plan(Stage stage, Desired d, NodeFacts f) {
        List<Setting> out = new ArrayList<>();
        switch (stage) {
            case QUEUES -> {
                missing(d, f, out);
                tuned(d, f).forEach(nic -> new Nic(d, f, nic).channels(out));
            }
            case OFFLOAD -> tuned(d, f).forEach(nic -> new Nic(d, f, nic).tlsTxOffload(out));
            case COALESCING -> tuned(d, f).forEach(nic -> new Nic(d, f, nic).coalescing(out));
            default -> {}
        }
        return out;
    }

    private static void missing(Desired d, NodeFacts f, List<Setting> out) {
        List<String> names = Targets.interfaces(d.interfaces(), f.defaultRouteInterface());
        if (names.isEmpty()) {
            out.add(Setting.unsupported(
                    "nic", null, null, "no interface named and no default route: set spec.nic.interfaces"));
        }
        for (String n : names) {
            if (!f.nics().containsKey(n)) {
                out.add(Setting.unsupported("nic/" + n, null, null, "no interface " + n + " on this node"));
            }
        }
    }

    /** The ethtool settings of one interface. */
    private record Nic(Desired d, NodeFacts f, NicFacts nic) {

        NicType type() {
            return d.nicType() == NicType.AUTO ? NicType.ofDriver(nic.driver()) : d.nicType();
        }

        String name(String param) {
            return "ethtool/" + nic.name() + "/" + param;
        }

        void channels(List<Setting> out) {
            NicDefaults def = NicDefaults.of(type());
            Integer asked = d.combinedQueues();
            if (asked == null && !def.setQueues()) {
                return;
            }
            String name = name("combined");
            if (!f.ethtoolAvailable()) {
                unsupportedIfAsked(out, asked, name, "ethtool not found");
                return;
            }
            NicFacts.Channels ch = nic.channels();
            if (ch == null || (!ch.hasCombined() && !ch.hasSeparate())) {
                unsupportedIfAsked(out, asked, name, nic.name() + " does not report channel counts (ethtool -l)");
                return;
            }
            int online = f.onlineCpus().size();
            if (ch.hasCombined()) {
                int want = asked != null
                        ? asked
                        : Math.min(online, def.queueCap() == null ? Integer.MAX_VALUE : def.queueCap());
                out.add(channel("combined", want, ch.maxCombined(), ch.combined(), asked != null));
            } else {
                // devices with separate RX and TX channels (veth): the same count for both
                int want = asked != null ? asked : online;
                out.add(channel("rx", want, ch.maxRx(), ch.rx(), asked != null));
                out.add(channel("tx", want, ch.maxTx(), ch.tx(), asked != null));
            }
        }

        private Setting channel(String param, int want, int max, Integer current, boolean asked) {
            int n = Math.min(want, max);
            String msg = n < want && asked ? "capped to the NIC's maximum of " + max : null;
            return Setting.ethtool(
                            SettingKind.ETHTOOL_CHANNELS,
                            nic.name(),
                            param,
                            Integer.toString(n),
                            current == null ? null : current.toString())
                    .note(msg);
        }

        private static void unsupportedIfAsked(List<Setting> out, Object asked, String name, String why) {
            if (asked != null) {
                out.add(Setting.unsupported(name, asked.toString(), null, why));
            }
        }

        /**
         * NIC TLS TX offload, when the spec asks for it (tls.mode ktls-offload): on where the NIC offers it; where
         * it cannot (no such feature, fixed off, or kept off by the kernel though asked on) a finding that says
         * so, and kernel TLS stays in software.
         */
        void tlsTxOffload(List<Setting> out) {
            if (!d.tlsTxOffload()) {
                return;
            }
            String feature = NicFacts.TLS_TX_OFFLOAD;
            String name = name(feature);
            String nicName = nic.name() + " (" + (nic.driver() == null ? "driver unknown" : nic.driver()) + ")";
            String software = ": the edge server uses kernel TLS in software";
            NicFacts.Feature t = nic.tlsTxOffload();
            String why = null;
            if (!f.ethtoolAvailable()) {
                why = "ethtool not found: cannot turn on TLS TX offload on " + nicName + software;
            } else if (t == null) {
                why = nicName + " has no TLS TX offload (ethtool -k shows no " + feature
                        + ": kernel or driver without it)" + software;
            } else if (!t.offered()) {
                why = nicName + " has no TLS TX offload (ethtool -k: " + feature + " " + t + ")" + software;
            } else if (t.refused()) {
                why = nicName + " keeps TLS TX offload off although it was asked on (ethtool -k: " + feature + " " + t
                        + "): the kernel drops it while TX checksum offload (tx-checksumming) is off, or the driver refuses it"
                        + software;
            }
            if (why != null) {
                out.add(Setting.unsupported(name, "on", t == null ? null : t.on() ? "on" : "off", why));
                return;
            }
            out.add(Setting.ethtool(SettingKind.ETHTOOL_FEATURE, nic.name(), feature, "on", t.on() ? "on" : "off"));
        }

        void coalescing(List<Setting> out) {
            NicDefaults def = NicDefaults.of(type());
            NicSpec.Coalescing c = d.coalescing();
            Boolean adaptiveAsked = c == null ? null : c.adaptiveRx();
            Integer rxAsked = c == null ? null : c.rxUsecs();
            Integer txAsked = c == null ? null : c.txUsecs();
            // adaptive-rx first: with it on, several drivers ignore rx-usecs
            coalesce(
                    out,
                    "adaptive-rx",
                    adaptiveAsked == null ? null : onOff(adaptiveAsked),
                    def.adaptiveRx() == null ? null : onOff(def.adaptiveRx()));
            coalesce(out, "rx-usecs", str(rxAsked), str(def.rxUsecs()));
            coalesce(out, "tx-usecs", str(txAsked), str(def.txUsecs()));
        }

        private void coalesce(List<Setting> out, String param, String asked, String byDefault) {
            String want = asked != null ? asked : byDefault;
            if (want == null) {
                return;
            }
            String current = nic.coalescing() == null ? null : nic.coalescing().get(param);
            if (!f.ethtoolAvailable() || current == null) {
                // a type default the NIC lacks is not worth a finding; a value the spec asks for is
                if (asked != null) {
                    out.add(Setting.unsupported(
                            name(param),
                            want,
                            null,
                            !f.ethtoolAvailable()
                                    ? "ethtool not found"
                                    : nic.name() + " has no " + param + " ("
                                            + (nic.coalescing() == null
                                                    ? "ethtool -c: not supported"
                                                    : type() == NicType.VIRTIO
                                                            ? "virtio device without notification coalescing, VIRTIO_NET_F_NOTF_COAL"
                                                            : "ethtool -c: n/a")
                                            + ")"));
                }
                return;
            }
            out.add(Setting.ethtool(SettingKind.ETHTOOL_COALESCE, nic.name(), param, want, current));
        }

        private static String onOff(boolean b) {
            return b ? "on" : "off";
        }

        private static String str(Integer i) {
            return i == null ? null : i.toString();
        }
    }
}
