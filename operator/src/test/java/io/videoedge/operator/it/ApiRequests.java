package io.videoedge.operator.it;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The API server's own count of the requests it served ({@code apiserver_request_total} on its
 * /metrics): writes by resource (with /subresource) and verb, and those that failed, by code.
 */
record ApiRequests(Map<String, Long> writes, Map<String, Long> failedWrites) {
    static final Set<String> WRITE_VERBS = Set.of("POST", "PUT", "PATCH", "DELETE", "APPLY", "DELETECOLLECTION");
    private static final Pattern LINE = Pattern.compile("^apiserver_request_total\\{([^}]*)} ([0-9.e+]+)$");
    private static final Pattern LABEL = Pattern.compile("(\\w+)=\"([^\"]*)\"");

    static ApiRequests scrape(KubernetesClient admin) {
        String text = admin.raw(admin.getMasterUrl().toString().replaceAll("/$", "") + "/metrics");
        Map<String, Long> writes = new TreeMap<>();
        Map<String, Long> failed = new TreeMap<>();
        for (String line : text.split("\n")) {
            Matcher m = LINE.matcher(line);
            if (!m.matches()) {
                continue;
            }
            Map<String, String> labels = new LinkedHashMap<>();
            Matcher l = LABEL.matcher(m.group(1));
            while (l.find()) {
                labels.put(l.group(1), l.group(2));
            }
            String verb = labels.getOrDefault("verb", "");
            if (!WRITE_VERBS.contains(verb)) {
                continue;
            }
            String resource = labels.getOrDefault("resource", "")
                    + (labels.getOrDefault("subresource", "").isEmpty() ? "" : "/" + labels.get("subresource"));
            long n = (long) Double.parseDouble(m.group(2));
            String key = resource + " " + verb;
            writes.merge(key, n, Long::sum);
            String code = labels.getOrDefault("code", "");
            if (!code.startsWith("2")) {
                failed.merge(key + " " + code, n, Long::sum);
            }
        }
        return new ApiRequests(writes, failed);
    }

    /** What happened between {@code before} and this scrape. */
    ApiRequests since(ApiRequests before) {
        return new ApiRequests(minus(writes, before.writes), minus(failedWrites, before.failedWrites));
    }

    long total() {
        return writes.values().stream().mapToLong(Long::longValue).sum();
    }

    private static Map<String, Long> minus(Map<String, Long> a, Map<String, Long> b) {
        Map<String, Long> out = new TreeMap<>();
        a.forEach((k, v) -> {
            long d = v - b.getOrDefault(k, 0L);
            if (d != 0) {
                out.put(k, d);
            }
        });
        return out;
    }
}
