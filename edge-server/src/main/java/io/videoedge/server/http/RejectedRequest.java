package io.videoedge.server.http;

import one.nio.http.Request;

/**
 * A request the parser refused. It travels through the pipeline like any request, so its error
 * response leaves in order after earlier pipelined responses. {@code close} says whether the
 * connection can be trusted afterwards (framing intact) or must be closed. One refused after its head
 * was parsed ({@link #after}: a pipeline or rate limit's 429) keeps the request's method and URI, for
 * the access log.
 */
public final class RejectedRequest extends Request {
    private final String status;
    private final String reason;
    private final boolean close;
    private final long retryAfterSeconds;
    private final boolean parsed;

    public RejectedRequest(int method, String status, String reason, boolean close, boolean http11) {
        this(method, status, reason, close, http11, 1);
    }

    /** @param retryAfterSeconds the Retry-After of a 429 */
    public RejectedRequest(
            int method, String status, String reason, boolean close, boolean http11, long retryAfterSeconds) {
        this(method, "/", false, status, reason, close, http11, retryAfterSeconds);
    }

    /** A request refused after its head was parsed: it keeps its method and URI (not its headers). */
    public static RejectedRequest after(
            Request parsed, String status, String reason, boolean close, long retryAfterSeconds) {
        return new RejectedRequest(
                parsed.getMethod(), parsed.getURI(), true, status, reason, close, parsed.isHttp11(), retryAfterSeconds);
    }

    private RejectedRequest(
            int method,
            String uri,
            boolean parsed,
            String status,
            String reason,
            boolean close,
            boolean http11,
            long retryAfterSeconds) {
        super(method, uri, http11);
        this.parsed = parsed;
        this.status = status;
        this.reason = reason;
        this.close = close;
        this.retryAfterSeconds = retryAfterSeconds;
        if (close) {
            addHeader("Connection: close");
        }
    }

    public String status() {
        return status;
    }

    public String reason() {
        return reason;
    }

    public long retryAfterSeconds() {
        return retryAfterSeconds;
    }

    public boolean closesConnection() {
        return close;
    }

    /** Refused after its head was parsed: its method and URI are the client's. */
    public boolean parsed() {
        return parsed;
    }
}
