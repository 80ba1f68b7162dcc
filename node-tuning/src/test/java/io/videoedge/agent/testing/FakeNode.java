package io.videoedge.agent.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A fake /proc and /sys tree in a temp dir, laid out as the kernel does (driver and device
 * symlinks, msi_irqs on the PCI function, /proc/interrupts), for probes and appliers.
 */
public final class FakeNode {
    private final Path root;
    private final List<String> interrupts = new ArrayList<>();
    private int cpus;
    private int pci;

    public FakeNode(Path root) {
        this.root = root;
        file("proc/sys/kernel/osrelease", "6.18.0-test");
        file("proc/sys/kernel/random/boot_id", "0b6b1f4e-boot-1");
        file("proc/sys/net/ipv4/tcp_available_congestion_control", "reno cubic");
        file("proc/sys/net/ipv4/tcp_available_ulp", "mptcp");
        file("proc/sys/net/ipv4/tcp_congestion_control", "cubic");
        file("proc/sys/net/ipv4/tcp_mem", "287901\t383869\t575802");
        file("proc/sys/net/ipv4/tcp_notsent_lowat", "4294967295");
        file("proc/sys/net/ipv4/tcp_rmem", "4096\t131072\t6291456");
        file("proc/sys/net/ipv4/tcp_wmem", "4096\t16384\t4194304");
        file("proc/sys/net/core/rps_sock_flow_entries", "0");
        file("proc/sys/vm/min_free_kbytes", "67584");
        file("proc/sys/vm/swappiness", "60");
        dir("sys/module/tcp_cubic");
        dir("sys/fs/cgroup/cpuset");
        cpus(2);
    }

    public Path root() {
        return root;
    }

    /** n online CPUs on one NUMA node. */
    public FakeNode cpus(int n) {
        return numa(n, 1);
    }

    /** n CPUs split evenly over nodes NUMA nodes (node k has CPUs k*n/nodes ...). */
    public FakeNode numa(int n, int nodes) {
        this.cpus = n;
        file("sys/devices/system/cpu/online", "0-" + (n - 1));
        file("sys/devices/system/cpu/possible", "0-" + (n - 1));
        int per = n / nodes;
        for (int k = 0; k < nodes; k++) {
            file("sys/devices/system/node/node" + k + "/cpulist", (k * per) + "-" + ((k + 1) * per - 1));
        }
        return this;
    }

    public int cpuCount() {
        return cpus;
    }

    public FakeNode defaultRoute(String iface) {
        file(
                "proc/net/route",
                "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n" + iface
                        + "\t00000000\t0100000A\t0003\t0\t0\t0\t00000000\t0\t0\t0\n");
        return this;
    }

    /**
     * A PCI NIC: driver link, numa_node, queues with rps files, one MSI-X vector per queue pair
     * named as the driver names it, plus one control vector, all in /proc/interrupts. virtio-net as
     * Debian's 6.1 kernel shows it under qemu: the net device's parent is virtioN under the PCI
     * function, which alone has numa_node and msi_irqs; each queue pair has two vectors (input.N,
     * output.N); virtioN/features has no notification coalescing (bit 53).
     */
    public FakeNode nic(String name, String driver, int queues, int firstIrq, int numaNode) {
        String dev = "sys/devices/pci0000:00/0000:00:0" + (++pci) + ".0";
        String netDev = dev;
        boolean virtio = driver.equals("virtio_net");
        if (virtio) {
            netDev = dev + "/virtio" + pci; // virtio-net sits under the PCI function
            dir(netDev);
            file(netDev + "/features", "1".repeat(53) + "0" + "1".repeat(10));
        }
        dir("sys/bus/pci/drivers/" + driver);
        link(netDev + "/driver", "sys/bus/pci/drivers/" + driver);
        file(dev + "/numa_node", Integer.toString(numaNode));
        link("sys/class/net/" + name + "/device", netDev);
        interrupts.add(firstIrq + ": 0 PCI-MSIX " + controlName(name, driver));
        file(dev + "/msi_irqs/" + firstIrq, "msix");
        int irq = firstIrq;
        for (int q = 0; q < queues; q++) {
            for (String vector : virtio ? List.of("input", "output") : List.of("")) {
                irq++;
                file(dev + "/msi_irqs/" + irq, "msix");
                interrupts.add(irq + ": 0 PCI-MSIX "
                        + (virtio ? "virtio" + pci + "-" + vector + "." + q : queueName(name, driver, q)));
                file("proc/irq/" + irq + "/smp_affinity_list", "0-" + (cpus - 1));
            }
            queue(name, q);
        }
        writeInterrupts();
        return this;
    }

    /**
     * What reloading a NIC's driver can do to its IRQs: every vector of the PCI function gets a number {@code by}
     * higher (its affinity the kernel's default, all CPUs), and each old number is now another device's (an NVMe
     * queue's) with its /proc/irq file left as it was.
     */
    public FakeNode renumberIrqs(String name, int by) {
        try {
            String msi = msiDir(name);
            List<Integer> old = list(msi).stream().map(Integer::valueOf).toList();
            for (int irq : old) {
                delete(msi + "/" + irq);
                file(msi + "/" + (irq + by), "msix");
                file("proc/irq/" + (irq + by) + "/smp_affinity_list", "0-" + (cpus - 1));
            }
            for (int i = 0, lines = interrupts.size(); i < lines; i++) {
                String line = interrupts.get(i);
                int irq = Integer.parseInt(line.substring(0, line.indexOf(':')));
                if (old.contains(irq)) {
                    interrupts.set(i, (irq + by) + line.substring(line.indexOf(':')));
                    interrupts.add(irq + ": 0 PCI-MSIX nvme0q" + irq);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        writeInterrupts();
        return this;
    }

    /**
     * An interface set down whose driver frees its IRQs on down (Intel's, ENA, bnxt): its vectors leave
     * /proc/interrupts, but stay the device's (msi_irqs) and keep their /proc/irq files.
     */
    public FakeNode irqsFreed(String name) {
        try {
            List<String> vectors = list(msiDir(name));
            interrupts.removeIf(line -> vectors.contains(line.substring(0, line.indexOf(':'))));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        writeInterrupts();
        return this;
    }

    /** A driver that gives its MSI vectors back while down (legacy interrupts look the same): its function lists none. */
    public FakeNode vectorsReleased(String name) {
        try {
            Path dir = root.resolve(msiDir(name));
            for (String v : list(msiDir(name))) {
                Files.delete(dir.resolve(v));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    /** The msi_irqs directory of an interface's PCI function (its device's, or the parent's for virtio), from root. */
    private String msiDir(String name) throws IOException {
        Path device = root.resolve("sys/class/net/" + name + "/device").toRealPath();
        Path function = Files.exists(device.resolve("msi_irqs")) ? device : device.getParent();
        return root.toRealPath().relativize(function).resolve("msi_irqs").toString();
    }

    /** A virtio NIC whose device offers notification coalescing (VIRTIO_NET_F_NOTF_COAL, bit 53). */
    public FakeNode virtioCoalescing(String name) {
        try {
            Path dev = root.resolve("sys/class/net/" + name + "/device").toRealPath();
            Files.writeString(dev.resolve("features"), "1".repeat(64));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    /** A virtual interface (veth): queues, no device, no IRQs. */
    public FakeNode virtualNic(String name, int queues) {
        dir("sys/class/net/" + name);
        for (int q = 0; q < queues; q++) {
            queue(name, q);
        }
        return this;
    }

    private void queue(String name, int q) {
        file("sys/class/net/" + name + "/queues/rx-" + q + "/rps_cpus", "0".repeat(Math.max(1, (cpus + 3) / 4)));
        file("sys/class/net/" + name + "/queues/rx-" + q + "/rps_flow_cnt", "0");
        dir("sys/class/net/" + name + "/queues/tx-" + q);
    }

    /** Removes the rx/tx queues from q on (what ethtool -L does to sysfs). */
    public void setQueues(String name, int queues) {
        for (String d : list("sys/class/net/" + name + "/queues")) {
            int n = Integer.parseInt(d.substring(3));
            if (n >= queues) {
                delete("sys/class/net/" + name + "/queues/" + d);
            }
        }
        for (int q = 0; q < queues; q++) {
            if (!Files.exists(root.resolve("sys/class/net/" + name + "/queues/rx-" + q))) {
                queue(name, q);
            }
        }
    }

    private static String controlName(String name, String driver) {
        return switch (driver) {
            case "mlx5_core" -> "mlx5_async0@pci:0000:00:01.0";
            case "virtio_net" -> "virtio1-config";
            default -> name;
        };
    }

    private static String queueName(String name, String driver, int q) {
        return switch (driver) {
            case "mlx5_core" -> "mlx5_comp" + q + "@pci:0000:00:01.0";
            case "ena" -> name + "-Tx-Rx-" + q;
            case "i40e", "ice" -> driver + "-" + name + "-TxRx-" + q;
            default -> name + "-TxRx-" + q;
        };
    }

    private void writeInterrupts() {
        file("proc/interrupts", "           CPU0\n" + String.join("\n", interrupts) + "\n");
    }

    /** The edge server pod's cgroup v1 cpuset (cgroupfs driver, Guaranteed QoS) with its containers. */
    public FakeNode pod(String uid, String podCpus, String... containerCpus) {
        String dir = "sys/fs/cgroup/cpuset/kubepods/pod" + uid;
        file(dir + "/cpuset.cpus", podCpus);
        file(dir + "/cpuset.sched_relax_domain_level", "-1");
        file(dir + "/cpuset.memory_spread_page", "0");
        for (int i = 0; i < containerCpus.length; i++) {
            file(dir + "/c" + i + "/cpuset.cpus", containerCpus[i]);
        }
        return this;
    }

    public FakeNode cgroupV2() {
        file("sys/fs/cgroup/cgroup.controllers", "cpuset cpu io memory pids");
        return this;
    }

    /** A module built into the kernel (modules.builtin), with no /sys/module directory: no parameters. */
    public FakeNode builtinModule(String path) {
        file("lib/modules/6.18.0-test/modules.builtin", read("lib/modules/6.18.0-test/modules.builtin") + path + "\n");
        return this;
    }

    public FakeNode installedModule(String name, String path) {
        file("lib/modules/6.18.0-test/modules.dep", read("lib/modules/6.18.0-test/modules.dep") + path + ":\n");
        return this;
    }

    public String read(String relative) {
        Path p = root.resolve(relative);
        try {
            return Files.exists(p) ? Files.readString(p) : "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The value as the agent would see it (trailing newline dropped). */
    public String value(String relative) {
        return read(relative).strip();
    }

    /**
     * Writes a file (a newline added), swapped in by one rename: an agent at work meanwhile never reads it missing or
     * empty. Over a file that refuses writes ({@link #refuseWrites}) it takes writes again.
     */
    public FakeNode file(String relative, String content) {
        Path p = root.resolve(relative);
        Path tmp = p.resolveSibling("." + p.getFileName() + ".tmp");
        try {
            Files.createDirectories(p.getParent());
            Files.writeString(tmp, content.endsWith("\n") ? content : content + "\n");
            Files.move(
                    tmp,
                    p,
                    java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                    java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    public FakeNode dir(String relative) {
        try {
            Files.createDirectories(root.resolve(relative));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    public void delete(String relative) {
        Path p = root.resolve(relative);
        try (var s = Files.walk(p)) {
            s.sorted(java.util.Comparator.reverseOrder())
                    .forEach(x -> x.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private List<String> list(String relative) {
        try (var s = Files.list(root.resolve(relative))) {
            return s.map(x -> x.getFileName().toString()).toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    /**
     * Makes a kernel file refuse writes while reads still work, as the kernel does (EIO for a
     * managed IRQ, EINVAL for a value out of range): a link to /proc/version, which root can read
     * but no one can write.
     */
    public void refuseWrites(String relative) {
        Path f = root.resolve(relative);
        Path tmp = f.resolveSibling("." + f.getFileName() + ".tmp");
        try {
            // swapped in by one rename, as file() does: an agent at work meanwhile never finds the file missing
            Files.deleteIfExists(tmp);
            Files.createSymbolicLink(tmp, Path.of("/proc/version"));
            Files.move(
                    tmp,
                    f,
                    java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                    java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void link(String from, String to) {
        Path f = root.resolve(from);
        try {
            Files.createDirectories(f.getParent());
            Files.createSymbolicLink(f, f.getParent().relativize(root.resolve(to)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
