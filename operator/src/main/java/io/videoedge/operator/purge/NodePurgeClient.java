package io.videoedge.operator.purge;

import io.videoedge.api.CachePurge;
import io.videoedge.api.CachePurgeSpec;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * POST /admin/purge to one node's edge server with the VideoEdge's admin token; the purge's uid as
 * the id, so that a repeated call (an operator restart, a lost answer) is not applied twice.
 */
public final class NodePurgeClient {
    static final Duration TIMEOUT = Duration.ofSeconds(5);
    private static final Pattern NUMBER = Pattern.compile("\"(memory|disk|fills)\":(\\d+)");
    private static final Pattern APPLIED_AT = Pattern.compile("\"appliedAt\":\"([^\"]+)\"");

    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(TIMEOUT)
            .build();

    public NodeCall purge(URI admin, String token, CachePurgeSpec spec, String id) {
        String query = (spec.path() != null ? "path=" + encode(spec.path()) : "prefix=" + encode(spec.prefix()))
                + "&id=" + encode(id);
        HttpRequest request = HttpRequest.newBuilder(admin.resolve("/admin/purge?" + query))
                .timeout(TIMEOUT)
                .header("Authorization", "Bearer " + token)
                .POST(HttpRequest.BodyPublishers.noBody())
                .build();
        try {
            HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                return new NodeCall.Refused(
                        r.statusCode(),
                        "HTTP " + r.statusCode() + ": " + r.body().strip());
            }
            long memory = 0, disk = 0, fills = 0;
            Matcher m = NUMBER.matcher(r.body());
            while (m.find()) {
                long v = Long.parseLong(m.group(2));
                switch (m.group(1)) {
                    case "memory" -> memory = v;
                    case "disk" -> disk = v;
                    default -> fills = v;
                }
            }
            return new NodeCall.Acknowledged(
                    memory, disk, fills, r.body().contains("\"repeated\":true"), appliedAt(r.body()));
        } catch (IOException e) {
            return new NodeCall.Unreachable(CachePurge.UNREACHABLE, admin + ": " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new NodeCall.Unreachable(CachePurge.UNREACHABLE, "interrupted");
        }
    }

    /** The server's appliedAt, or null when it has none or an unreadable one (the call's time is used then). */
    static Instant appliedAt(String body) {
        Matcher m = APPLIED_AT.matcher(body);
        if (!m.find()) return null;
        try {
            return Instant.parse(m.group(1));
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
