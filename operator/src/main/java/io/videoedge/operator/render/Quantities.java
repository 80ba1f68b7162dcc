package io.videoedge.operator.render;

import io.fabric8.kubernetes.api.model.Quantity;
import java.math.BigDecimal;
import java.math.RoundingMode;

/** Kubernetes quantities (128Mi, 1Gi, 100G) to bytes and to one-nio sizes (128m, 1g: 1024-based). */
public final class Quantities {
    private static final long K = 1024;
    private static final long M = K * K;
    private static final long G = M * K;

    private Quantities() {}

    /** Bytes of a quantity, rounded up to a whole byte (0.5Ki is 512, 1.1 is 2). */
    public static long bytes(String quantity) {
        BigDecimal amount = Quantity.getAmountInBytes(new Quantity(quantity));
        return amount.setScale(0, RoundingMode.CEILING).longValueExact();
    }

    /** The same size in one-nio's notation: the largest of g, m, k that divides it exactly, else plain bytes. */
    public static String oneNioSize(long bytes) {
        if (bytes != 0 && bytes % G == 0) {
            return bytes / G + "g";
        }
        if (bytes != 0 && bytes % M == 0) {
            return bytes / M + "m";
        }
        if (bytes != 0 && bytes % K == 0) {
            return bytes / K + "k";
        }
        return Long.toString(bytes);
    }

    public static String oneNioSize(String quantity) {
        return oneNioSize(bytes(quantity));
    }

    /** A size for a JVM flag (-Xmx256m): JVM flags take the same k/m/g suffixes, 1024-based. */
    public static String jvmSize(long bytes) {
        return oneNioSize(bytes);
    }

    /** Whole CPUs of a quantity such as 4, 4000m or 3.5 (rounded down: a pod needs whole cores). */
    public static long wholeCpus(Quantity cpu) {
        return cpu.getNumericalAmount().setScale(0, RoundingMode.FLOOR).longValue();
    }
}
