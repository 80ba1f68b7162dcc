package io.videoedge.operator.config;

import io.fabric8.kubernetes.client.utils.KubernetesResourceUtil;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Labels given on the command line as {@code key=value,key=value} (the chart joins {@code monitoring.labels}
 * that way). Keys and values follow Kubernetes' label syntax, checked here so that a wrong one stops the
 * operator at start with its name rather than failing every PodMonitor write later.
 */
public final class LabelList {
    /**
     * Up to 63 alphanumerics, '-', '_', '.', starting and ending alphanumeric, or empty (Kubernetes allows an
     * empty value; Fabric8's {@code areLabelsValid} does not, so keys are checked by Fabric8, values here).
     */
    private static final Pattern VALUE = Pattern.compile("([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?");

    private LabelList() {}

    /** The labels in {@code list}, in order; empty for a blank list. */
    public static Map<String, String> parse(String list) {
        Map<String, String> labels = new LinkedHashMap<>();
        if (list == null || list.isBlank()) {
            return labels;
        }
        for (String item : list.split(",")) {
            int eq = item.indexOf('=');
            if (eq < 0) {
                throw new IllegalArgumentException("'" + item.strip() + "' is not key=value");
            }
            String key = item.substring(0, eq).strip();
            String value = item.substring(eq + 1).strip();
            if (!KubernetesResourceUtil.isValidKey(key)) {
                throw new IllegalArgumentException("'" + key + "' is not a label key (prefix/name, name up to 63"
                        + " characters: letters, digits, '-', '_', '.')");
            }
            if (!VALUE.matcher(value).matches()) {
                throw new IllegalArgumentException("the value of label '" + key + "', '" + value
                        + "', is not a label value (up to 63 characters: letters, digits, '-', '_', '.')");
            }
            if (labels.put(key, value) != null) {
                throw new IllegalArgumentException("label '" + key + "' is given twice");
            }
        }
        return labels;
    }
}
