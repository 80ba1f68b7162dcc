package io.videoedge.server.admin;

import io.prometheus.metrics.core.metrics.Counter;
import io.videoedge.server.cache.Purge;
import io.videoedge.server.cache.PurgeResult;
import io.videoedge.server.metrics.EdgeMetrics;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Pattern;
import one.nio.http.Request;
import one.nio.http.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code POST /admin/purge?path=/v/a.mp4} (one object) or {@code ?prefix=/live/} (every object under
 * it), with {@code Authorization: Bearer <token>}: the token in {@code admin.tokenFile}, read on every
 * request. Answers what was removed, as JSON. An optional {@code id} (the CachePurge's uid when the
 * operator sends it) makes retries idempotent: a purge already applied under that id is answered
 * from memory (the last {@value #REMEMBERED} ids) and not applied again, so a retried call does not
 * evict what was cached since. The answer carries {@code appliedAt}, when this server applied it (a
 * repeated answer the first time's), so that the operator tells a node that applied it before the
 * purge's deadline from one that applied it after. The memory is this object's: it lasts as long as the
 * process (config reloads and token rotations keep it); a restarted server forgets, and applies a
 * repeated id again, which only evicts what was cached since.
 *
 * <p>Refusals: 401 without a token, 403 with a wrong one or when the server has none, 405 for a
 * method other than POST, 400 for a bad path. None of them affects serving.
 */
public final class PurgeEndpoint {
    private static final Logger log = LoggerFactory.getLogger(PurgeEndpoint.class);
    static final int REMEMBERED = 1024;
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9._:-]{1,128}");

    private final Path tokenFile;
    private final Function<Purge, PurgeResult> cache;
    private final Counter requests;
    private final Map<String, String> applied = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
            return size() > REMEMBERED;
        }
    };

    /**
     * @param tokenFile admin.tokenFile, or null (every purge refused)
     * @param cache applies a purge to the cache (nothing cached: {@link PurgeResult#NONE})
     */
    public PurgeEndpoint(String tokenFile, Function<Purge, PurgeResult> cache, EdgeMetrics metrics) {
        this.tokenFile = tokenFile == null ? null : Path.of(tokenFile);
        this.cache = cache;
        this.requests = EdgeMetrics.counterBuilder()
                .name("videoedge_admin_purge_requests_total")
                .help("POST /admin/purge requests by result: ok, unauthorized (401), forbidden (403),"
                        + " bad_request (400, 405)")
                .labelNames("result")
                .register(metrics.registry());
        for (String r : new String[] {"ok", "unauthorized", "forbidden", "bad_request"}) requests.initLabelValues(r);
    }

    public Response handle(Request request) {
        AdminToken.Verdict verdict = AdminToken.check(request.getHeader("Authorization:"), token());
        switch (verdict) {
            case MISSING -> {
                requests.labelValues("unauthorized").inc();
                Response r = json(verdict.status, error("a bearer token is required (Authorization: Bearer ...)"));
                r.addHeader("WWW-Authenticate: Bearer realm=\"videoedge-admin\"");
                return r;
            }
            case WRONG -> {
                requests.labelValues("forbidden").inc();
                log.atWarn()
                        .addKeyValue("client", request.getHeader("X-Forwarded-For:"))
                        .log("purge refused: wrong admin token");
                return json(verdict.status, error("wrong admin token"));
            }
            case NOT_CONFIGURED -> {
                requests.labelValues("forbidden").inc();
                return json(verdict.status, error("purge is off: this server has no admin token (admin.tokenFile)"));
            }
            case ALLOWED -> {}
        }
        if (request.getMethod() != Request.METHOD_POST) {
            requests.labelValues("bad_request").inc();
            Response r = json("405 Method Not Allowed", error("use POST"));
            r.addHeader("Allow: POST");
            return r;
        }
        String path = request.getParameter("path=");
        String prefix = request.getParameter("prefix=");
        String id = request.getParameter("id=");
        if ((path == null) == (prefix == null)) {
            requests.labelValues("bad_request").inc();
            return json(Response.BAD_REQUEST, error("give exactly one of path= and prefix="));
        }
        Purge purge = path != null ? Purge.exact(path) : Purge.prefix(prefix);
        if (purge == null) {
            requests.labelValues("bad_request").inc();
            return json(
                    Response.BAD_REQUEST,
                    error("not a valid request path (starts with /, no ..): " + (path != null ? path : prefix)));
        }
        if (id != null && !ID.matcher(id).matches()) {
            requests.labelValues("bad_request").inc();
            return json(Response.BAD_REQUEST, error("id: 1 to 128 of A-Z a-z 0-9 . _ : -"));
        }
        requests.labelValues("ok").inc();
        synchronized (applied) {
            String earlier = id == null ? null : applied.get(id);
            if (earlier != null) return json(Response.OK, earlier.replace("\"repeated\":false", "\"repeated\":true"));
            PurgeResult r = cache.apply(purge);
            String body = "{\"purge\":" + quote(purge.toString()) + (id == null ? "" : ",\"id\":" + quote(id))
                    + ",\"memory\":" + r.memory() + ",\"disk\":" + r.disk() + ",\"fills\":" + r.fills()
                    + ",\"appliedAt\":\"" + Instant.now().truncatedTo(ChronoUnit.MILLIS) + "\""
                    + ",\"repeated\":false}\n";
            if (id != null) applied.put(id, body);
            return json(Response.OK, body);
        }
    }

    private String token() {
        if (tokenFile == null) return null;
        try {
            return Files.readString(tokenFile, StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            log.atWarn()
                    .addKeyValue("file", tokenFile.toString())
                    .addKeyValue("error", e.toString())
                    .log("admin token unreadable: purges are refused");
            return null;
        }
    }

    private static String error(String message) {
        return "{\"error\":" + quote(message) + "}\n";
    }

    static String quote(String s) {
        StringBuilder sb = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') sb.append('\\').append(c);
            else if (c < 0x20) sb.append(String.format("\\u%04x", (int) c));
            else sb.append(c);
        }
        return sb.append('"').toString();
    }

    private static Response json(String status, String body) {
        Response r = new Response(status, body.getBytes(StandardCharsets.UTF_8));
        r.addHeader("Content-Type: application/json");
        return r;
    }
}
