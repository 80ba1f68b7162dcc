package io.videoedge.operator.reconciler;

import io.videoedge.api.TlsMode;
import io.videoedge.api.TlsSpec;
import io.videoedge.api.VideoEdge;
import io.videoedge.api.VideoEdgeSpec;

/** Spec variations for tests. */
final class EdgeServerSpecs {
    private EdgeServerSpecs() {}

    static VideoEdge noHttps(VideoEdge ve) {
        VideoEdgeSpec s = ve.getSpec();
        ve.setSpec(s.withTls(new TlsSpec(
                TlsMode.NONE,
                null,
                s.tls().protocols(),
                s.tls().sessionTickets(),
                s.tls().earlyData())));
        return ve;
    }
}
