package io.videoedge.operator.it;

import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Every request one client sends (an interceptor on its HTTP client), by verb and resource as the API
 * server would name them: "PATCH pods/status", "LIST nodes", "GET secrets", "WATCH nodes". The operator's
 * own share of the API server's load, without the simulated cluster's.
 */
final class RequestLog implements Interceptor {
    private final Map<String, LongAdder> counts = new ConcurrentHashMap<>();

    @Override
    public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
        counts.computeIfAbsent(key(request.method(), request.uri()), k -> new LongAdder())
                .increment();
    }

    /** "VERB resource[/subresource]" of one request. */
    static String key(String method, java.net.URI uri) {
        String query = uri.getRawQuery() == null ? "" : uri.getRawQuery();
        List<String> path = Arrays.stream(uri.getRawPath().split("/"))
                .filter(s -> !s.isEmpty())
                .toList();
        // /api/v1/... or /apis/group/version/...
        int i = !path.isEmpty() && path.getFirst().equals("api") ? 2 : 3;
        if (path.size() > i + 1 && path.get(i).equals("namespaces") && path.size() > i + 2) {
            i += 2; // namespaced: skip namespaces/<ns>
        }
        if (path.size() <= i) {
            return method + " " + String.join("/", path);
        }
        String resource = path.get(i);
        boolean named = path.size() > i + 1;
        String sub = path.size() > i + 2 ? "/" + path.get(i + 2) : "";
        String verb = method;
        if (method.equals("GET")) {
            verb = query.contains("watch=true") ? "WATCH" : named ? "GET" : "LIST";
        }
        return verb + " " + resource + sub;
    }

    Map<String, Long> snapshot() {
        Map<String, Long> out = new TreeMap<>();
        counts.forEach((k, v) -> out.put(k, v.sum()));
        return out;
    }

    /** What was sent between {@code before} (a snapshot) and now, leader election's Lease renewals left out. */
    Map<String, Long> since(Map<String, Long> before) {
        Map<String, Long> out = new TreeMap<>();
        snapshot().forEach((k, v) -> {
            long d = v - before.getOrDefault(k, 0L);
            if (d != 0 && !k.endsWith(" leases")) {
                out.put(k, d);
            }
        });
        return out;
    }

    static long total(Map<String, Long> requests) {
        return requests.values().stream().mapToLong(Long::longValue).sum();
    }
}
