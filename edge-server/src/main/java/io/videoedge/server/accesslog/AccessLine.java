package io.videoedge.server.accesslog;

/**
 * One response as the access log writes it. Filled on the selector thread when the response is
 * queued ({@link #AccessLine}), finished when its last byte left or the connection went away
 * ({@link #finish}), formatted on the writer thread ({@link #appendJson}).
 */
public final class AccessLine {
    final long startMillis;
    final long startNanos;
    final String client;
    final String method;
    final String path;
    final int status;
    final long bodyLength;
    final String cache;
    final String tls;
    final boolean ktls;
    long bytes;
    long durationMillis;
    boolean complete;

    /**
     * @param path the request path without its query (which may carry a signed URL's token)
     * @param bodyLength the response body's length (0 for HEAD and bodiless responses)
     * @param cache the response's X-Cache (hit-memory, hit-disk, miss, ...), null when not cached content
     * @param tls the TLS protocol (TLSv1.3), null on plain HTTP
     */
    public AccessLine(
            long startMillis,
            long startNanos,
            String client,
            String method,
            String path,
            int status,
            long bodyLength,
            String cache,
            String tls,
            boolean ktls) {
        this.startMillis = startMillis;
        this.startNanos = startNanos;
        this.client = client;
        this.method = method;
        this.path = path;
        this.status = status;
        this.bodyLength = bodyLength;
        this.cache = cache;
        this.tls = tls;
        this.ktls = ktls;
    }

    /**
     * @param bytesSent body bytes that left (all of them when complete)
     * @param complete whether the whole response left; false when the connection closed first
     */
    public void finish(long bytesSent, boolean complete, long nowNanos) {
        this.bytes = bytesSent;
        this.complete = complete;
        this.durationMillis = Math.max(0, (nowNanos - startNanos) / 1_000_000);
    }

    /**
     * {"time":"2026-11-24T10:00:00.123Z","client":"10.0.0.7","method":"GET","path":"/hls/seg-1.m4s",
     * "status":200,"bytes":2097152,"ms":41,"complete":true,"cache":"hit-memory","tls":"TLSv1.3","ktls":true}
     * and a newline; cache and tls only when there is one.
     */
    void appendJson(LineBuffer b) {
        b.ascii("{\"time\":\"").time(startMillis).ch('"');
        b.ascii(",\"client\":").string(client);
        b.ascii(",\"method\":").string(method);
        b.ascii(",\"path\":").string(path);
        b.ascii(",\"status\":").num(status);
        b.ascii(",\"bytes\":").num(bytes);
        b.ascii(",\"ms\":").num(durationMillis);
        b.ascii(",\"complete\":").bool(complete);
        if (cache != null) {
            b.ascii(",\"cache\":").string(cache);
        }
        if (tls != null) {
            b.ascii(",\"tls\":").string(tls);
            b.ascii(",\"ktls\":").bool(ktls);
        }
        b.ascii("}\n");
    }
}
