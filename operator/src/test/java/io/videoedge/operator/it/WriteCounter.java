package io.videoedge.operator.it;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * The writes a simulated component sends, by resource and verb as the API server's
 * apiserver_request_total names them ("pods/status PATCH"), so that the operator's share of the API
 * server's count is the rest.
 */
final class WriteCounter {
    private final Map<String, LongAdder> sent = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> failed = new ConcurrentHashMap<>();

    /** Counts one write of {@code resource} (with /subresource) with {@code verb}, sent whether it succeeds or not. */
    <T> T count(String resource, String verb, Supplier<T> write) {
        String key = resource + " " + verb;
        sent.computeIfAbsent(key, k -> new LongAdder()).increment();
        try {
            return write.get();
        } catch (RuntimeException e) {
            failed.computeIfAbsent(key, k -> new LongAdder()).increment();
            throw e;
        }
    }

    void count(String resource, String verb, Runnable write) {
        count(resource, verb, () -> {
            write.run();
            return null;
        });
    }

    Map<String, Long> sent() {
        return snapshot(sent);
    }

    Map<String, Long> failed() {
        return snapshot(failed);
    }

    void reset() {
        sent.clear();
        failed.clear();
    }

    private static Map<String, Long> snapshot(Map<String, LongAdder> counts) {
        Map<String, Long> out = new TreeMap<>();
        counts.forEach((k, v) -> out.put(k, v.sum()));
        return out;
    }
}
