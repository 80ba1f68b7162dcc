package io.videoedge.server;

import java.io.IOException;

import io.videoedge.server.content.ContentStore.StoredFile;
import io.videoedge.server.http.Decision;
import io.videoedge.server.http.HttpDates;
import io.videoedge.server.http.Validators;
import io.videoedge.server.send.Body;
import io.videoedge.server.send.BodyResponse;
import one.nio.http.Response;

/** Response heads for stored objects and for errors. */
final class Responses {
    private Responses() {
    }

    /** 200/206 with a body (opened only when it will be sent), or 304/416 without one. */
    static Response forObject(Decision d, StoredFile file, boolean sendBody) throws IOException {
        Validators v = file.validators();
        Response r;
        switch (d.status()) {
            case 304 -> {
                r = new Response(Response.NOT_MODIFIED);
                validators(r, v);
                return dated(r);
            }
            case 416 -> {
                r = new Response(Response.REQUESTED_RANGE_NOT_SATISFIABLE, Response.EMPTY);
                r.addHeader("Content-Range: bytes */" + v.length());
                return dated(r);
            }
            default -> {
                String status = d.status() == 206 ? Response.PARTIAL_CONTENT : Response.OK;
                Body body = sendBody && d.length() > 0
                        ? new Body.FileRegion(file.open(), d.offset(), d.length())
                        : new Body.FileRegion(null, d.offset(), 0);
                r = new BodyResponse(status, body);
                r.addHeader("Content-Length: " + d.length());
                if (d.status() == 206) {
                    r.addHeader("Content-Range: bytes " + d.offset() + "-" + (d.offset() + d.length() - 1) + "/" + v.length());
                }
            }
        }
        r.addHeader("Content-Type: " + file.contentType());
        r.addHeader("Accept-Ranges: bytes");
        validators(r, v);
        return dated(r);
    }

    static Response error(String status) {
        return dated(new Response(status, Response.EMPTY));
    }

    static Response methodNotAllowed() {
        Response r = new Response(Response.METHOD_NOT_ALLOWED, Response.EMPTY);
        r.addHeader("Allow: GET, HEAD");
        return dated(r);
    }

    private static void validators(Response r, Validators v) {
        r.addHeader("Last-Modified: " + HttpDates.format(v.lastModifiedMillis()));
        r.addHeader("ETag: " + v.etag());
    }

    private static Response dated(Response r) {
        r.addHeader("Date: " + HttpDates.now());
        return r;
    }
}
