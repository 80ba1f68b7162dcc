package io.videoedge.server;

import io.videoedge.server.cache.CacheHandler;
import io.videoedge.server.content.ContentPath;
import io.videoedge.server.content.ContentStore;
import io.videoedge.server.content.OpenFile;
import io.videoedge.server.http.Decision;
import io.videoedge.server.http.Negotiation;
import io.videoedge.server.signing.UrlSigning;
import java.io.IOException;
import one.nio.http.HttpSession;
import one.nio.http.Request;
import one.nio.http.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The request path for video objects: method check, path normalisation, the signed-URL check (403
 * when the path's rule wants a valid token: {@link UrlSigning}), then the local content root
 * (the pure conditional/range decision, the head and a sendfile body), else the cache in front of
 * the origin ({@link CacheHandler}), else 404. Runs on the selector thread.
 */
final class ContentHandler {
    private static final Logger log = LoggerFactory.getLogger(ContentHandler.class);
    private final ContentStore content;
    private final CacheHandler cache;
    private final UrlSigning signing;

    ContentHandler(ContentStore content, CacheHandler cache, UrlSigning signing) {
        this.content = content;
        this.cache = cache;
        this.signing = signing;
    }

    void handle(Request request, HttpSession session) throws IOException {
        int method = request.getMethod();
        if (method != Request.METHOD_GET && method != Request.METHOD_HEAD) {
            session.sendResponse(Responses.methodNotAllowed());
            return;
        }
        String path = ContentPath.normalize(request.getPath());
        if (path == null) {
            session.sendResponse(Responses.error(Response.BAD_REQUEST));
            return;
        }
        if (signing != null && !signing.check("/" + path, rawQuery(request), session::getRemoteHost).allowed) {
            session.sendResponse(Responses.error(Response.FORBIDDEN));
            return;
        }
        OpenFile file;
        try {
            file = content == null ? null : content.open(path);
        } catch (IOException e) {
            // nothing was sent yet: answer, keep the connection (a closed connection without a response
            // is what a client would retry at once, and it says nothing)
            log.atWarn()
                    .addKeyValue("path", path)
                    .addKeyValue("error", e.toString())
                    .log("cannot open content file");
            session.sendResponse(Responses.error(Response.INTERNAL_ERROR));
            return;
        }
        if (file == null) {
            if (cache != null && !path.isEmpty()) {
                cache.handle(request, session, path);
            } else {
                session.sendResponse(Responses.error(Response.NOT_FOUND));
            }
            return;
        }
        try {
            Decision decision = Negotiation.decide(file.validators(), request, System.currentTimeMillis());
            session.sendResponse(Responses.forObject(decision, file, method == Request.METHOD_GET));
        } finally {
            file.release(); // the body, if any, holds its own reference
        }
    }

    void close() {
        if (content != null) content.close();
    }

    int openFiles() {
        return content == null ? 0 : content.openFiles();
    }

    long heldBytes() {
        return content == null ? 0 : content.heldBytes();
    }

    /**
     * The query as the client sent it, still percent-encoded, or null: the signature check decodes each
     * value once itself. one-nio's {@code getQueryString()} decodes the whole query first (so a token
     * value was decoded twice, and a bad escape threw out of the request path).
     */
    static String rawQuery(Request request) {
        String uri = request.getURI();
        int q = uri.indexOf('?');
        return q < 0 ? null : uri.substring(q + 1);
    }
}
