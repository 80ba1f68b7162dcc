package io.videoedge.server.send;

import io.videoedge.server.metrics.EdgeMetrics;
import io.videoedge.server.resources.FileSource;
import java.io.IOException;
import one.nio.net.Socket;

/** A file region sent with sendfile(2): the bytes go from the page cache to the socket in the kernel. */
final class SendfileItem extends FileRangeItem {

    SendfileItem(FileSource file, long offset, long length, EdgeMetrics metrics, EdgeMetrics.Source source) {
        super(file, offset, length, metrics, source);
    }

    @Override
    public int write(Socket socket) throws IOException {
        long sent = socket.sendFile(file.file(), offset, remaining);
        if (sent > 0) {
            advance(sent);
            metrics.bodyBytes(EdgeMetrics.Via.SENDFILE, source, sent);
        }
        return (int) sent;
    }
}
