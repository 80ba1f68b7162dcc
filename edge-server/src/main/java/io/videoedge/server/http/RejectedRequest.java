package io.videoedge.server.http;

import one.nio.http.Request;

/**
 * A request the parser refused. It travels through the pipeline like any request, so its error
 * response leaves in order after earlier pipelined responses. {@code close} says whether the
 * connection can be trusted afterwards (framing intact) or must be closed.
 */
public final class RejectedRequest extends Request {
    private final String status;
    private final String reason;
    private final boolean close;
    private final long retryAfterSeconds;

    public RejectedRequest(int method, String status, String reason, boolean close, boolean http11) {
        this(method, status, reason, close, http11, 1);
    }

    /** @param retryAfterSeconds the Retry-After of a 429 */
    public RejectedRequest(
            int method, String status, String reason, boolean close, boolean http11, long retryAfterSeconds) {
        super(method, "/", http11);
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
}
