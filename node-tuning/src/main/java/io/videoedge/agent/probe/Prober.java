package io.videoedge.agent.probe;

import io.videoedge.agent.facts.Boot;
import io.videoedge.agent.facts.CpuSet;
import io.videoedge.agent.facts.NicFacts;
import io.videoedge.agent.facts.NodeFacts;
import io.videoedge.agent.facts.PodFacts;
import io.videoedge.agent.facts.ProbeRequest;
import io.videoedge.agent.facts.Targets;
import io.videoedge.agent.host.CommandRunner;
import io.videoedge.agent.host.HostFs;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads the node's facts from /proc and /sys under the host root, and ethtool's answers. */
public final class Prober {
    /** /proc/interrupts names of queue vectors: TxRx, rx/tx, virtio input/output, mlx5 completion. */
    private static final Pattern QUEUE_IRQ = Pattern.compile("(?i)(tx|rx|input|output|comp)");

    private static final Pattern TRAILING_NUMBER = Pattern.compile("([0-9]+)$");
    /** virtio-net feature bit: the device moderates notifications (interrupt coalescing, rx-usecs). */
    private static final int VIRTIO_NET_F_NOTF_COAL = 53;

    private final HostFs fs;
    private final CommandRunner runner;
    /** Read once: a boot outlives the process that reads it. */
    private Boot boot;

    public Prober(HostFs fs, CommandRunner runner) {
        this.fs = fs;
        this.runner = runner;
    }

    /** This boot of the node: /proc/sys/kernel/random/boot_id and /proc/stat's btime. */
    public synchronized Boot boot() {
        if (boot == null) {
            String id = fs.readIfPresent("proc/sys/kernel/random/boot_id")
                    .map(String::strip)
                    .orElse(null);
            Instant startedAt = fs.readIfPresent("proc/stat")
                    .flatMap(stat -> stat.lines()
                            .filter(l -> l.startsWith("btime "))
                            .map(l -> l.substring(6).strip())
                            .filter(v -> v.matches("[0-9]{1,18}"))
                            .map(v -> Instant.ofEpochSecond(Long.parseLong(v)))
                            .findFirst())
                    .orElse(null);
            boot = new Boot(id, startedAt);
        }
        return boot;
    }

    public NodeFacts probe(ProbeRequest request) {
        String kernel = fs.readIfPresent("proc/sys/kernel/osrelease").orElse("unknown");
        List<String> ccs = words(fs.readIfPresent("proc/sys/net/ipv4/tcp_available_congestion_control")
                .orElse(""));
        boolean tlsUlp = words(
                        fs.readIfPresent("proc/sys/net/ipv4/tcp_available_ulp").orElse(""))
                .contains("tls");
        String cgroup = fs.exists("sys/fs/cgroup/cgroup.controllers") ? "v2" : "v1";
        CpuSet online = CpuSet.parseList(
                fs.readIfPresent("sys/devices/system/cpu/online").orElse("0"));
        CpuSet possible = CpuSet.parseList(
                fs.readIfPresent("sys/devices/system/cpu/possible").orElse(online.toList()));
        int nrCpus = possible.toSortedList().stream()
                        .mapToInt(Integer::intValue)
                        .max()
                        .orElse(0)
                + 1;
        boolean ethtool = runner.available("ethtool");

        Map<String, String> interrupts = interruptNames();
        String defaultRoute = defaultRouteInterface();
        // the interfaces the planner tunes: their current values are read
        Set<String> tuned = new LinkedHashSet<>(Targets.interfaces(request.interfaces(), defaultRoute));
        Set<String> names = new LinkedHashSet<>(tuned);
        for (String n : fs.list("sys/class/net")) {
            if (fs.exists("sys/class/net/" + n + "/device")) {
                names.add(n); // every real NIC is reported as a capability
            }
        }
        Map<String, NicFacts> nics = new LinkedHashMap<>();
        for (String n : names) {
            if (fs.isDirectory("sys/class/net/" + n)) {
                nics.put(n, nic(n, interrupts, ethtool, tuned.contains(n)));
            }
        }

        Map<String, String> sysctls = new TreeMap<>();
        Set<String> readOnlySysctls = new TreeSet<>();
        for (String name : request.sysctls()) {
            String path = Targets.sysctlPath(name);
            fs.readIfPresent(path).ifPresent(v -> {
                sysctls.put(name, v);
                if (!fs.writable(path)) {
                    readOnlySysctls.add(name);
                }
            });
        }
        // modules with a file under /lib/modules/KERNEL (modules.dep) or built in (modules.builtin); in
        // the kernel now: those under /sys/module and every built-in one, which has a directory there
        // only when it has parameters (a built-in sch_netem or tcp_bbr has none, and modprobe of it
        // changes nothing: it would never read back as loaded)
        Set<String> builtin = modulesListed(kernel, "modules.builtin");
        Set<String> loadable = modulesListed(kernel, "modules.dep");
        loadable.addAll(builtin);
        Set<String> loaded = new HashSet<>(fs.list("sys/module"));
        loaded.addAll(builtin);
        Optional<PodFacts> pod = request.podUid() == null || request.podUid().isBlank()
                ? Optional.empty()
                : Optional.of(pod(request.podUid(), cgroup));
        return new NodeFacts(
                kernel,
                ccs,
                loadable,
                loaded,
                tlsUlp,
                cgroup,
                nrCpus,
                online,
                numaNodes(online),
                defaultRoute,
                nics,
                fs.onReadOnlyMount("sys/class/net"),
                sysctls,
                ethtool,
                runner.available("modprobe"),
                pod,
                readOnlySysctls,
                isolatedCpus(),
                boot().id());
    }

    /**
     * CPUs the kernel keeps housekeeping work off (isolcpus=, nohz_full=): since Linux 5.10 it drops them
     * from every RPS mask written, so a mask naming them would never read back as written.
     */
    private CpuSet isolatedCpus() {
        CpuSet out = CpuSet.empty();
        for (String file : List.of("sys/devices/system/cpu/isolated", "sys/devices/system/cpu/nohz_full")) {
            String v = fs.readIfPresent(file).orElse("").strip();
            if (v.isEmpty() || v.equals("(null)")) {
                continue;
            }
            try {
                CpuSet cpus = CpuSet.parseList(v);
                out = out.union(cpus);
            } catch (RuntimeException e) {
                // not a CPU list: taken as no isolated CPUs (a mask naming them then fails its read-back)
            }
        }
        return out;
    }

    /** One interface; current values (IRQ affinity, RPS, RFS, coalescing) only when tuned: capabilities need none. */
    private NicFacts nic(String name, Map<String, String> interrupts, boolean ethtool, boolean tuned) {
        String base = "sys/class/net/" + name;
        String driver = fs.linkName(base + "/device/driver").orElse(null);
        if (driver == null && ethtool) {
            CommandRunner.Result info = runner.run(List.of("ethtool", "-i", name));
            if (info.ok()) {
                driver = info.stdout()
                        .lines()
                        .filter(l -> l.startsWith("driver:"))
                        .map(l -> l.substring(7).strip())
                        .findFirst()
                        .orElse(null);
            }
        }
        // a PCI NIC has numa_node itself; a virtio NIC (virtioN under the PCI function) only on its parent
        Optional<String> device = fs.realPath(base + "/device");
        int numa = fs.readIfPresent(base + "/device/numa_node")
                .or(() -> device.flatMap(dev -> fs.readIfPresent(parent(dev) + "/numa_node")))
                .map(String::strip)
                .filter(s -> s.matches("-?[0-9]+"))
                .map(Integer::parseInt)
                .orElse(-1);
        List<String> queues = fs.list(base + "/queues");
        List<String> rx = queues.stream()
                .filter(q -> q.startsWith("rx-"))
                .sorted(Prober::byQueueNumber)
                .toList();
        int tx = (int) queues.stream().filter(q -> q.startsWith("tx-")).count();

        Set<Integer> msi = msiVectors(device);
        List<Integer> irqs = new ArrayList<>();
        Map<Integer, Integer> irqQueues = new TreeMap<>();
        Map<Integer, String> affinity = new TreeMap<>();
        for (int irq : msi) {
            String label = interrupts.get(Integer.toString(irq));
            if (label != null && QUEUE_IRQ.matcher(label).find()) {
                irqs.add(irq);
                queueNumber(label).ifPresent(q -> irqQueues.put(irq, q));
                if (tuned) {
                    fs.readIfPresent("proc/irq/" + irq + "/smp_affinity_list")
                            .ifPresent(v -> affinity.put(irq, v.strip()));
                }
            }
        }
        Map<String, String> rps = new LinkedHashMap<>();
        Map<String, String> flow = new LinkedHashMap<>();
        for (String q : tuned ? rx : List.<String>of()) {
            fs.readIfPresent(base + "/queues/" + q + "/rps_cpus").ifPresent(v -> rps.put(q, v.strip()));
            fs.readIfPresent(base + "/queues/" + q + "/rps_flow_cnt").ifPresent(v -> flow.put(q, v.strip()));
        }

        NicFacts.Channels channels = null;
        Map<String, String> coalescing = null;
        NicFacts.Feature tlsTxOffload = null;
        if (ethtool) {
            CommandRunner.Result l = runner.run(List.of("ethtool", "-l", name));
            if (l.ok()) {
                channels = EthtoolParser.channels(l.stdout());
            }
            CommandRunner.Result c = tuned ? runner.run(List.of("ethtool", "-c", name)) : null;
            if (c != null && c.ok()) {
                coalescing = EthtoolParser.coalescing(c.stdout());
                if ("virtio_net".equals(driver) && !virtioFeature(device, VIRTIO_NET_F_NOTF_COAL)) {
                    // virtio_net lists rx-usecs/tx-usecs (as 0) but refuses other values unless the device
                    // offers notification coalescing: the NIC does not have them
                    coalescing.remove("rx-usecs");
                    coalescing.remove("tx-usecs");
                }
            }
            CommandRunner.Result k = runner.run(List.of("ethtool", "-k", name));
            if (k.ok()) {
                tlsTxOffload = EthtoolParser.feature(k.stdout(), NicFacts.TLS_TX_OFFLOAD);
            }
        }
        return new NicFacts(
                name, driver, numa, rx, tx, irqs, affinity, rps, flow, channels, coalescing, tlsTxOffload, irqQueues);
    }

    /**
     * The MSI vectors of an interface's device as they are now, labelled or not: a driver requests its queue IRQs when
     * the interface comes up and frees them when it goes down (Intel's, ENA, bnxt), but the vectors stay allocated to
     * the device until the driver lets it go (a reload allocates new ones, perhaps with other numbers). Only the
     * function's own (a virtio NIC's are its PCI function's, the parent of virtioN), not a bridge's above it. Null
     * when that cannot be told: the interface is not in this network namespace (renamed, moved into a pod's, or gone),
     * or its function lists no vector (legacy interrupts, a driver that gives them back while down, unreadable).
     */
    public Set<Integer> deviceIrqs(String iface) {
        Optional<String> device = fs.realPath("sys/class/net/" + iface + "/device");
        if (device.isEmpty()) {
            return null;
        }
        String dev = device.get();
        Set<Integer> msi = msiIrqs(dev.substring(dev.lastIndexOf('/') + 1).matches("virtio[0-9]+") ? parent(dev) : dev);
        return msi.isEmpty() ? null : msi;
    }

    /**
     * The vectors a queue IRQ may be among: the device's and its parent's (a virtio NIC's are its PCI function's, the
     * parent of virtioN). A bridge's vectors above a PCI NIC come with them; the queue labels leave those out.
     */
    private Set<Integer> msiVectors(Optional<String> device) {
        Set<Integer> msi = new TreeSet<>();
        device.ifPresent(dev -> {
            msi.addAll(msiIrqs(dev));
            msi.addAll(msiIrqs(parent(dev)));
        });
        return msi;
    }

    /** The MSI vectors a PCI function lists in its msi_irqs directory (none without one). */
    private Set<Integer> msiIrqs(String function) {
        Set<Integer> msi = new TreeSet<>();
        fs.list(function + "/msi_irqs").stream()
                .filter(v -> v.matches("[0-9]+"))
                .map(Integer::valueOf)
                .forEach(msi::add);
        return msi;
    }

    private static String parent(String path) {
        int slash = path.lastIndexOf('/');
        return slash > 0 ? path.substring(0, slash) : path;
    }

    /**
     * The queue (channel) a queue IRQ serves, from its /proc/interrupts name: the number it ends with,
     * before any "@pci..." suffix (virtio2-input.3 and virtio2-output.3: 3; mlx5_comp5@pci:...: 5;
     * i40e-eth0-TxRx-7: 7).
     */
    static Optional<Integer> queueNumber(String label) {
        int at = label.indexOf('@');
        Matcher m = TRAILING_NUMBER.matcher(at >= 0 ? label.substring(0, at) : label);
        return m.find() ? Optional.of(Integer.parseInt(m.group(1))) : Optional.empty();
    }

    /** Whether a virtio device negotiated a feature bit (its features file: one 0/1 per bit, bit 0 first). */
    private boolean virtioFeature(Optional<String> device, int bit) {
        String bits = device.flatMap(dev -> fs.readIfPresent(dev + "/features"))
                .orElse("")
                .strip();
        return bits.length() > bit && bits.charAt(bit) == '1';
    }

    private static int byQueueNumber(String a, String b) {
        return Integer.compare(Integer.parseInt(a.substring(3)), Integer.parseInt(b.substring(3)));
    }

    /** IRQ number to its name (last column of /proc/interrupts). */
    private Map<String, String> interruptNames() {
        Map<String, String> m = new LinkedHashMap<>();
        for (String line : fs.readIfPresent("proc/interrupts").orElse("").split("\n")) {
            String l = line.strip();
            int colon = l.indexOf(':');
            if (colon <= 0 || !l.substring(0, colon).matches("[0-9]+")) {
                continue;
            }
            String[] cols = l.substring(colon + 1).strip().split("\\s+");
            m.put(l.substring(0, colon), cols[cols.length - 1]);
        }
        return m;
    }

    private String defaultRouteInterface() {
        for (String line : fs.readIfPresent("proc/net/route").orElse("").split("\n")) {
            String[] f = line.strip().split("\\s+");
            if (f.length > 7 && f[1].equals("00000000") && f[7].equals("00000000")) {
                return f[0];
            }
        }
        return null;
    }

    private Map<Integer, CpuSet> numaNodes(CpuSet online) {
        Map<Integer, CpuSet> nodes = new TreeMap<>();
        for (String n : fs.list("sys/devices/system/node")) {
            if (n.matches("node[0-9]+")) {
                fs.readIfPresent("sys/devices/system/node/" + n + "/cpulist")
                        .ifPresent(l -> nodes.put(Integer.parseInt(n.substring(4)), CpuSet.parseList(l)));
            }
        }
        if (nodes.isEmpty()) {
            nodes.put(0, online);
        }
        return nodes;
    }

    private Set<String> modulesListed(String kernel, String file) {
        Set<String> mods = new TreeSet<>();
        for (String line : fs.readIfPresent("lib/modules/" + kernel + "/" + file)
                .orElse("")
                .split("\n")) {
            int colon = line.indexOf(':');
            String path = colon < 0 ? line.strip() : line.substring(0, colon);
            int slash = path.lastIndexOf('/');
            int ko = path.indexOf(".ko");
            if (ko > slash + 1) {
                mods.add(path.substring(slash + 1, ko).replace('-', '_'));
            }
        }
        return mods;
    }

    /**
     * Finds the pod's cgroup under both kubelet cgroup drivers (cgroupfs and systemd), all QoS classes and
     * any kubelet {@code cgroupRoot}: the pods' parent is {@code kubepods} (cgroupfs) or
     * {@code kubepods.slice} (systemd) at the top, or below the cgroupRoot, e.g. kind's {@code /kubelet}:
     * {@code kubelet/kubepods/pod<uid>} or {@code kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-pod<uid>.slice}.
     */
    private PodFacts pod(String uid, String cgroupVersion) {
        String base = cgroupVersion.equals("v1") ? "sys/fs/cgroup/cpuset/" : "sys/fs/cgroup/";
        String cgroupfsName = "pod" + uid;
        String systemdSuffix = "-pod" + uid.replace('-', '_') + ".slice";
        List<String> candidates = new ArrayList<>();
        for (String kubepods : kubepodsDirs(base)) {
            candidates.add(kubepods);
            for (String qos : fs.list(base + kubepods)) {
                // QoS classes: kubepods/burstable, kubepods.slice/kubepods-burstable.slice (and besteffort)
                if (qos.endsWith("burstable")
                        || qos.endsWith("besteffort")
                        || qos.endsWith("-burstable.slice")
                        || qos.endsWith("-besteffort.slice")) {
                    candidates.add(kubepods + "/" + qos);
                }
            }
        }
        List<String> found = new ArrayList<>();
        for (String parent : candidates) {
            for (String child : fs.list(base + parent)) {
                if (child.equals(cgroupfsName) || child.endsWith(systemdSuffix)) {
                    found.add(parent + "/" + child);
                }
            }
        }
        String cpusFile = cgroupVersion.equals("v1") ? "cpuset.cpus" : "cpuset.cpus.effective";
        for (String c : found) {
            String dir = base + c;
            if (!fs.isDirectory(dir)) {
                continue;
            }
            CpuSet cpus = null;
            for (String child : fs.list(dir)) {
                Optional<String> list = fs.isDirectory(dir + "/" + child)
                        ? fs.readIfPresent(dir + "/" + child + "/" + cpusFile)
                        : Optional.empty();
                if (list.isPresent()) {
                    CpuSet s = CpuSet.parseList(list.get());
                    if (!s.isEmpty() && (cpus == null || s.size() < cpus.size())) {
                        cpus = s;
                    }
                }
            }
            if (cpus == null) {
                cpus = CpuSet.parseList(fs.readIfPresent(dir + "/" + cpusFile).orElse(""));
            }
            return new PodFacts(
                    uid,
                    dir,
                    cpus,
                    fs.readIfPresent(dir + "/cpuset.sched_relax_domain_level")
                            .map(String::strip)
                            .orElse(null),
                    fs.readIfPresent(dir + "/cpuset.memory_spread_page")
                            .map(String::strip)
                            .orElse(null));
        }
        return new PodFacts(uid, null, CpuSet.empty(), null, null);
    }

    /**
     * The kubelet's pod parents under {@code base}, relative to it: {@code kubepods} or {@code kubepods.slice}
     * at the top or one or two levels below (a cgroupRoot such as {@code /kubelet} or {@code /a/b}), and their
     * systemd forms under a cgroupRoot ({@code kubelet.slice/kubelet-kubepods.slice}).
     */
    private List<String> kubepodsDirs(String base) {
        List<String> out = new ArrayList<>();
        List<String> level = List.of("");
        for (int depth = 0; depth < 3 && !level.isEmpty(); depth++) {
            List<String> next = new ArrayList<>();
            for (String dir : level) {
                for (String child : fs.list(base + dir)) {
                    String rel = dir.isEmpty() ? child : dir + "/" + child;
                    if (!fs.isDirectory(base + rel)) {
                        continue;
                    }
                    if (child.equals("kubepods")
                            || child.equals("kubepods.slice")
                            || child.endsWith("-kubepods.slice")) {
                        out.add(rel);
                    } else if (!child.startsWith("system.slice") && !child.startsWith("user.slice")) {
                        next.add(rel);
                    }
                }
            }
            level = next;
        }
        return out;
    }

    private static List<String> words(String s) {
        return s.isBlank() ? List.of() : List.of(s.strip().split("\\s+"));
    }
}
