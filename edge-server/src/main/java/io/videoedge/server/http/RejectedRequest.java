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

    public RejectedRequest(int method, String status, String reason, boolean close, boolean http11) {
        super(method, "/", http11);
        this.status = status;
        this.reason = reason;
        this.close = close;
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

    public boolean closesConnection() {
        return close;
    }
}
