package io.videoedge.agent.facts;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Objects;

/**
 * A set of CPU numbers, in the kernel's two notations: the list ("0-3,8,10-11", cpuset.cpus,
 * smp_affinity_list) and the hex bitmap in 32-bit groups ("ff,ffffffff", rps_cpus).
 */
public final class CpuSet {
    private final BitSet bits;

    private CpuSet(BitSet bits) {
        this.bits = bits;
    }

    public static CpuSet of(int... cpus) {
        BitSet b = new BitSet();
        for (int c : cpus) {
            b.set(c);
        }
        return new CpuSet(b);
    }

    public static CpuSet range(int fromInclusive, int toExclusive) {
        BitSet b = new BitSet();
        b.set(fromInclusive, toExclusive);
        return new CpuSet(b);
    }

    public static CpuSet empty() {
        return new CpuSet(new BitSet());
    }

    /** Parses "0-3,8" (blank = empty). */
    public static CpuSet parseList(String list) {
        BitSet b = new BitSet();
        String s = list == null ? "" : list.strip();
        if (s.isEmpty()) {
            return new CpuSet(b);
        }
        for (String part : s.split(",")) {
            String p = part.strip();
            int dash = p.indexOf('-');
            if (dash < 0) {
                b.set(Integer.parseInt(p));
            } else {
                int from = Integer.parseInt(p.substring(0, dash).strip());
                int to = Integer.parseInt(p.substring(dash + 1).strip());
                if (to < from) {
                    throw new IllegalArgumentException("bad CPU range " + p);
                }
                b.set(from, to + 1);
            }
        }
        return new CpuSet(b);
    }

    /** Parses a kernel hex bitmap: groups of up to 8 hex digits separated by commas, most significant first. */
    public static CpuSet parseMask(String mask) {
        String s = mask.strip().replace(",", "");
        if (s.isEmpty() || !s.matches("[0-9a-fA-F]+")) {
            throw new IllegalArgumentException("not a CPU mask: " + mask);
        }
        BitSet b = new BitSet();
        int bit = 0;
        for (int i = s.length() - 1; i >= 0; i--, bit += 4) {
            int nibble = Character.digit(s.charAt(i), 16);
            for (int k = 0; k < 4; k++) {
                if ((nibble & (1 << k)) != 0) {
                    b.set(bit + k);
                }
            }
        }
        return new CpuSet(b);
    }

    /** The list notation, ranges collapsed: "0-3,8". */
    public String toList() {
        StringBuilder sb = new StringBuilder();
        int i = bits.nextSetBit(0);
        while (i >= 0) {
            int end = bits.nextClearBit(i) - 1;
            if (!sb.isEmpty()) {
                sb.append(',');
            }
            sb.append(i);
            if (end > i) {
                sb.append('-').append(end);
            }
            i = bits.nextSetBit(end + 1);
        }
        return sb.toString();
    }

    /**
     * The hex bitmap as the kernel prints it for a machine with nrCpus possible CPUs (%*pb):
     * 32-bit groups separated by commas, the leading group only as wide as it needs to be.
     */
    public String toMask(int nrCpus) {
        int width = Math.max(nrCpus, bits.length());
        int groups = Math.max(1, (width + 31) / 32);
        StringBuilder sb = new StringBuilder();
        for (int g = groups - 1; g >= 0; g--) {
            long v = 0;
            for (int k = 0; k < 32; k++) {
                if (bits.get(g * 32 + k)) {
                    v |= 1L << k;
                }
            }
            int digits = 8;
            if (g == groups - 1) {
                int bitsInTop = width - g * 32;
                digits = Math.max(1, (bitsInTop + 3) / 4);
            }
            if (!sb.isEmpty()) {
                sb.append(',');
            }
            String hex = Long.toHexString(v);
            sb.append("0".repeat(Math.max(0, digits - hex.length()))).append(hex);
        }
        return sb.toString();
    }

    public int size() {
        return bits.cardinality();
    }

    public boolean isEmpty() {
        return bits.isEmpty();
    }

    public boolean contains(int cpu) {
        return bits.get(cpu);
    }

    public List<Integer> toSortedList() {
        List<Integer> l = new ArrayList<>();
        bits.stream().forEach(l::add);
        return l;
    }

    public CpuSet minus(CpuSet other) {
        BitSet b = (BitSet) bits.clone();
        b.andNot(other.bits);
        return new CpuSet(b);
    }

    public CpuSet union(CpuSet other) {
        BitSet b = (BitSet) bits.clone();
        b.or(other.bits);
        return new CpuSet(b);
    }

    public CpuSet and(CpuSet other) {
        BitSet b = (BitSet) bits.clone();
        b.and(other.bits);
        return new CpuSet(b);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CpuSet c && bits.equals(c.bits);
    }

    @Override
    public int hashCode() {
        return Objects.hash(bits);
    }

    @Override
    public String toString() {
        return toList();
    }
}
