package io.videoedge.server;

import io.videoedge.server.content.OpenFile;
import io.videoedge.server.http.Decision;
import io.videoedge.server.http.HttpDates;
import io.videoedge.server.http.Statuses;
import io.videoedge.server.http.Validators;
import io.videoedge.server.metrics.EdgeMetrics;
import io.videoedge.server.send.Body;
import io.videoedge.server.send.BodyResponse;
import one.nio.http.Response;

/** Response heads for stored objects and for errors. */
final class Responses {
    private Responses() {}

    /** 200/206 with a body (which takes its own reference to the file), or 304/416 without one. */
    static Response forObject(Decision d, OpenFile file, boolean sendBody) {
        Validators v = file.validators();
        Response r;
        switch (d.status()) {
            case 304 -> {
                r = new Response(Response.NOT_MODIFIED);
                r.addHeader("Last-Modified: " + file.lastModified());
                r.addHeader("ETag: " + v.etag());
                return dated(r);
            }
            case 416 -> {
                r = new Response(Response.REQUESTED_RANGE_NOT_SATISFIABLE, Response.EMPTY);
                r.addHeader("Content-Range: bytes */" + v.length());
                return dated(r);
            }
            default -> {
                String status = d.status() == 206 ? Response.PARTIAL_CONTENT : Response.OK;
                if (sendBody && d.length() > 0 && file.retain()) {
                    Body body = new Body.FileRegion(file, d.offset(), d.length(), EdgeMetrics.Source.CONTENT);
                    if (d.status() == 200 && d.length() == v.length()) {
                        // the whole file: status line to entity headers made when it was opened
                        return dated(new BodyResponse(status, body, file.wholeHead()));
                    }
                    r = new BodyResponse(status, body);
                } else {
                    r = new Response(status); // HEAD, or an empty file: the head only
                }
                r.addHeader("Content-Length: " + d.length());
                if (d.status() == 206) {
                    r.addHeader("Content-Range: bytes " + d.offset() + "-" + (d.offset() + d.length() - 1) + "/"
                            + v.length());
                }
                for (String header : file.entityHeaders()) {
                    r.addHeader(header);
                }
                return dated(r);
            }
        }
    }

    static Response error(String status) {
        return error(status, 1); // a 429 of the pipeline rule: on a new connection, this one is closed
    }

    /** An empty error response; a 429 says when to try again. */
    static Response error(String status, long retryAfterSeconds) {
        Response r = new Response(status, Response.EMPTY);
        if (Statuses.TOO_MANY_REQUESTS.equals(status)) {
            r.addHeader("Retry-After: " + retryAfterSeconds);
        }
        return dated(r);
    }

    static Response methodNotAllowed() {
        Response r = new Response(Response.METHOD_NOT_ALLOWED, Response.EMPTY);
        r.addHeader("Allow: GET, HEAD");
        return dated(r);
    }

    private static Response dated(Response r) {
        r.addHeader(HttpDates.dateHeader());
        return r;
    }
}
