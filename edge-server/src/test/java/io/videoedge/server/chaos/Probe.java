package io.videoedge.server.chaos;

import io.videoedge.server.testing.TestCerts;
import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A well-behaved client during an attack: from its own source address (127.0.0.250, away from the
 * attackers' per-address cap), over HTTP and HTTPS, asks for a manifest, a segment and an object the
 * cache holds, a few times a second, and checks every byte against what it must be. Its figures are
 * what a viewer would have seen.
 */
final class Probe implements AutoCloseable {
    /** One request's outcome. */
    record Sample(long nanos, boolean ok, boolean wrong) {}

    private final List<URI> targets;
    private final Map<String, byte[]> expected;
    private final HttpClient http;
    private final HttpClient https;
    private final List<Sample> samples = new ArrayList<>();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final List<Thread> threads = new ArrayList<>();
    private final List<String> wrongPaths = new ArrayList<>();

    /** @param expected path to bytes; asked for over both schemes */
    Probe(int httpPort, int httpsPort, Map<String, byte[]> expected, long pauseMillis) throws IOException {
        this.expected = expected;
        InetAddress source = InetAddress.getByAddress(new byte[] {127, 0, 0, (byte) 250});
        http = HttpClient.newBuilder()
                .localAddress(source)
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5))
                .build();
        https = HttpClient.newBuilder()
                .localAddress(source)
                .version(HttpClient.Version.HTTP_1_1)
                .sslContext(TestCerts.trustingContext())
                .connectTimeout(Duration.ofSeconds(5))
                .build();
        List<URI> t = new ArrayList<>();
        for (String path : expected.keySet()) {
            t.add(URI.create("http://127.0.0.1:" + httpPort + path));
            t.add(URI.create("https://localhost:" + httpsPort + path));
        }
        targets = List.copyOf(t);
        for (int k = 0; k < 2; k++) {
            int offset = k;
            threads.add(Thread.ofPlatform().daemon().name("probe-" + k).start(() -> loop(offset, pauseMillis)));
        }
    }

    private void loop(int offset, long pauseMillis) {
        for (int i = offset; running.get(); i += 2) {
            URI uri = targets.get(i % targets.size());
            long start = System.nanoTime();
            boolean ok = false;
            boolean wrong = false;
            try {
                HttpResponse<byte[]> r = (uri.getScheme().equals("https") ? https : http)
                        .send(
                                HttpRequest.newBuilder(uri)
                                        .timeout(Duration.ofSeconds(10))
                                        .build(),
                                HttpResponse.BodyHandlers.ofByteArray());
                ok = r.statusCode() == 200 && Arrays.equals(r.body(), expected.get(uri.getPath()));
                wrong = r.statusCode() == 200 && !ok;
            } catch (IOException e) {
                // a failure: counted
            } catch (InterruptedException e) {
                return;
            }
            synchronized (this) {
                samples.add(new Sample(System.nanoTime() - start, ok, wrong));
                if (wrong) wrongPaths.add(uri.toString());
            }
            try {
                Thread.sleep(pauseMillis);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** Stops and returns what was seen. */
    synchronized Figures.ProbeFigures stop() throws InterruptedException {
        running.set(false);
        for (Thread t : threads) t.interrupt();
        return Figures.probe(samples);
    }

    synchronized List<String> wrongPaths() {
        return List.copyOf(wrongPaths);
    }

    @Override
    public void close() throws InterruptedException {
        stop();
    }
}
