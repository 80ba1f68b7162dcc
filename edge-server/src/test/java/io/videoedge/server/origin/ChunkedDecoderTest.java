package io.videoedge.server.origin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.net.ProtocolException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ChunkedDecoderTest {
    private static final String BODY =
            "4\r\nWiki\r\n5;ext=1\r\npedia\r\nE\r\n in\r\n\r\nchunks.\r\n0\r\nTrailer: x\r\n\r\n";

    private static String decode(String encoded, int sliceSize) throws Exception {
        ByteBuffer b = ByteBuffer.allocateDirect(encoded.length());
        b.put(encoded.getBytes(StandardCharsets.ISO_8859_1));
        ChunkedDecoder d = new ChunkedDecoder();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int from = 0; from < encoded.length() && !d.done(); from += sliceSize) {
            d.feed(b, from, Math.min(encoded.length(), from + sliceSize), (pos, len) -> {
                byte[] chunk = new byte[len];
                b.get(pos, chunk);
                out.write(chunk);
            });
        }
        assertThat(d.done()).isTrue();
        return out.toString(StandardCharsets.ISO_8859_1);
    }

    @Test
    void decodesWhateverTheSlicing() throws Exception {
        for (int slice = 1; slice <= BODY.length(); slice++) {
            assertThat(decode(BODY, slice)).as("slices of " + slice).isEqualTo("Wikipedia in\r\n\r\nchunks.");
        }
    }

    @Test
    void stopsAtTheEndOfTheBody() throws Exception {
        ByteBuffer b = ByteBuffer.wrap("0\r\n\r\nGARBAGE".getBytes(StandardCharsets.ISO_8859_1));
        ChunkedDecoder d = new ChunkedDecoder();
        assertThat(d.feed(b, 0, b.capacity(), (p, l) -> {})).isEqualTo(5);
        assertThat(d.done()).isTrue();
    }

    @Test
    void rejectsMalformedFraming() {
        assertThatThrownBy(() -> decode("g\r\n", 3)).isInstanceOf(ProtocolException.class);
        assertThatThrownBy(() -> decode("3\r\nabcX\r\n", 9)).isInstanceOf(ProtocolException.class);
        assertThatThrownBy(() -> decode("1234567890abcdef0\r\n", 19)).isInstanceOf(ProtocolException.class);
    }
}
