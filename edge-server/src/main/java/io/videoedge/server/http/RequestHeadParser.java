package io.videoedge.server.http;

import one.nio.http.Request;
import one.nio.http.Response;
import one.nio.util.Utf8;

/**
 * The request-head parser, pure: fed one complete line at a time (without CR LF), it builds the
 * {@link Request} and enforces the head's limits (414 for a long target, 431 for a large head, 400
 * for malformed lines, a duplicate or missing Host, a bad Content-Length or a chunked body, 413 for
 * a body too large to skip). Each line gives a {@link Step}; the connection (reading, deadlines,
 * pipelining, early data) stays with the session that feeds it.
 */
public final class RequestHeadParser {
    static final int MAX_HEADERS = 128;
    /** A request body larger than this is refused rather than read and dropped. */
    public static final long MAX_SKIPPED_BODY = 64 * 1024;

    /** What a line did. */
    public sealed interface Step permits Continue, Started, Complete, Refused {}

    /** The line was taken (a header, or an empty line before a request line); the head goes on. */
    public record Continue() implements Step {}

    /** A request line was taken: a head has begun. */
    public record Started(Request request) implements Step {}

    /** The empty line ending a head: the request, and how many body bytes follow it (to skip). */
    public record Complete(Request request, long bodyLength) implements Step {}

    /** The request is refused; nothing more on the connection is to be parsed. */
    public record Refused(RejectedRequest rejection) implements Step {}

    private static final Continue CONTINUE = new Continue();

    private final int maxHeaderSize;
    private final int maxUriLength;

    private Request request; // the head being parsed, null between heads
    private int headBytes;
    private int hostHeaders;
    private long contentLength;
    private boolean contentLengthSeen;
    private boolean chunked;

    public RequestHeadParser(int maxHeaderSize, int maxUriLength) {
        this.maxHeaderSize = maxHeaderSize;
        this.maxUriLength = maxUriLength;
    }

    /** A request line was taken and its head is not complete yet. */
    public boolean inHead() {
        return request != null;
    }

    /** Takes one complete line (without its CR LF). */
    public Step line(byte[] b, int start, int length) {
        if (request == null) {
            return length == 0
                    ? CONTINUE
                    : requestLine(b, start, length); // RFC 9112 2.2: empty lines before are ignored
        }
        return length == 0 ? endOfHead() : headerLine(b, start, length);
    }

    /**
     * The start of a line whose end has not arrived ({@code bytes} of it so far): a refusal when it can
     * no longer fit the limits, else null.
     */
    public Refused incomplete(int bytes) {
        if (request == null) {
            if (bytes > maxUriLength + 32) { // method, spaces and version around the target
                return refused(
                        new RejectedRequest(0, Response.REQUEST_URI_TOO_LONG, "request line too long", true, true));
            }
        } else if (headBytes + bytes > maxHeaderSize) {
            return refused(headTooLarge());
        }
        return null;
    }

    private Step requestLine(byte[] b, int start, int length) {
        Request parsed = RequestLines.parseRequestLine(b, start, length, maxUriLength);
        if (parsed instanceof RejectedRequest r && r.closesConnection()) {
            return refused(r);
        }
        request = parsed;
        headBytes = length + 2;
        hostHeaders = 0;
        contentLength = 0;
        contentLengthSeen = false;
        chunked = false;
        return new Started(parsed);
    }

    private Step headerLine(byte[] b, int start, int length) {
        headBytes += length + 2;
        if (headBytes > maxHeaderSize || request.getHeaderCount() >= MAX_HEADERS) {
            return refused(headTooLarge());
        }
        String problem = RequestLines.checkHeaderLine(b, start, length);
        if (problem != null) {
            return refuse(Response.BAD_REQUEST, problem);
        }
        String header = Utf8.read(b, start, length);
        if (header.regionMatches(true, 0, "Host:", 0, 5)) {
            hostHeaders++;
        } else if (header.regionMatches(true, 0, "Content-Length:", 0, 15)) {
            long cl = RequestLines.contentLength(header.substring(15).trim());
            // a second Content-Length must repeat the first, 0 included (RFC 9112 6.3: a "0" then
            // a "30" would have the next 30 bytes taken for a body an intermediary did not see)
            if (cl < 0 || (contentLengthSeen && cl != contentLength)) {
                return refuse(Response.BAD_REQUEST, "invalid Content-Length");
            }
            contentLength = cl;
            contentLengthSeen = true;
        } else if (header.regionMatches(true, 0, "Transfer-Encoding:", 0, 18)) {
            chunked = true;
        }
        request.addHeader(header);
        return CONTINUE;
    }

    private Step endOfHead() {
        if (chunked) {
            // request bodies are not part of a video edge; without Content-Length they cannot be skipped
            return refuse(
                    isGetOrHead(request) ? Response.BAD_REQUEST : Response.METHOD_NOT_ALLOWED,
                    "Transfer-Encoding in a request");
        }
        if (hostHeaders > 1 || (request.isHttp11() && hostHeaders == 0)) {
            return refuse(Response.BAD_REQUEST, "exactly one Host header is required");
        }
        if (contentLength > MAX_SKIPPED_BODY) {
            return refuse(
                    isGetOrHead(request) ? Response.REQUEST_ENTITY_TOO_LARGE : Response.METHOD_NOT_ALLOWED,
                    "request body too large");
        }
        Complete done = new Complete(request, contentLength);
        request = null;
        return done;
    }

    private RejectedRequest headTooLarge() {
        return new RejectedRequest(
                request.getMethod(),
                Statuses.HEADER_FIELDS_TOO_LARGE,
                "request head larger than " + maxHeaderSize,
                true,
                request.isHttp11());
    }

    private Refused refuse(String status, String reason) {
        return refused(new RejectedRequest(request.getMethod(), status, reason, true, request.isHttp11()));
    }

    private Refused refused(RejectedRequest r) {
        request = null;
        return new Refused(r);
    }

    private static boolean isGetOrHead(Request r) {
        return r.getMethod() == Request.METHOD_GET || r.getMethod() == Request.METHOD_HEAD;
    }
}
