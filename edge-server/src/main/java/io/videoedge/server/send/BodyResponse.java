package io.videoedge.server.send;

import one.nio.http.Response;

/** A one-nio Response whose body is a {@link Body} written after the head (see EdgeSession). */
public final class BodyResponse extends Response {
    private final Body body;
    private boolean handedOver;

    public BodyResponse(String status, Body body) {
        super(status);
        this.body = body;
    }

    public Body body() {
        return body;
    }

    /** Called by the session once a queue item owns the body's resources. */
    public void handedOver() {
        handedOver = true;
    }

    /** Releases the body if no queue item took it (HEAD, a closed connection). */
    public void discardIfNotSent() {
        if (!handedOver) {
            body.discard();
        }
    }
}
