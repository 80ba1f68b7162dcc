package io.videoedge.server.chaos;

import io.videoedge.server.testing.Metrics;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;

/**
 * The server process stopped under the cache and under downloads: the disk cache damaged between a
 * SIGTERM and the restart, and SIGTERM while 16 MiB downloads run (the drain).
 */
final class Restarts {
    private final Rig rig;
    private final OriginFaults faults;

    Restarts(Rig rig, OriginFaults faults) {
        this.rig = rig;
        this.faults = faults;
    }

    String diskCorrupt(List<String> problems) throws Exception {
        int objects = 12;
        List<String> paths = new ArrayList<>();
        for (int i = 0; i < objects; i++) {
            String path = "/o/disk-" + (faults.next()) + "-2048k.m4s";
            paths.add(path);
            faults.fetch(path, 1, problems);
        }
        Thread.sleep(2000); // disk writes finish
        int code = rig.edge.stopProcess(Duration.ofSeconds(30));
        List<Path> files;
        try (Stream<Path> s = Files.walk(rig.cacheDir)) {
            files = s.filter(Files::isRegularFile).sorted().toList();
        }
        int damaged = 0;
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < files.size(); i++) {
            Path f = files.get(i);
            long size = Files.size(f);
            switch (i % 4) {
                case 0 -> { // bytes flipped in the middle
                    try (var ch = Files.newByteChannel(f, StandardOpenOption.WRITE)) {
                        byte[] junk = new byte[512];
                        random.nextBytes(junk);
                        ch.position(size / 2);
                        ch.write(java.nio.ByteBuffer.wrap(junk));
                    }
                    damaged++;
                }
                case 1 -> { // cut short
                    try (var ch = Files.newByteChannel(f, StandardOpenOption.WRITE)) {
                        ch.truncate(size / 3);
                    }
                    damaged++;
                }
                case 2 -> { // the start overwritten
                    try (var ch = Files.newByteChannel(f, StandardOpenOption.WRITE)) {
                        ch.write(java.nio.ByteBuffer.wrap(new byte[(int) Math.min(size, 4096)]));
                    }
                    damaged++;
                }
                default -> {}
            }
        }
        Files.write(rig.cacheDir.resolve("stray-garbage.bin"), new byte[1000]);
        rig.edge.restartProcess();
        OriginFaults.Outcomes o = new OriginFaults.Outcomes();
        for (String path : paths) {
            faults.fetch(path, 1, problems).counts.forEach((k, v) -> o.add(k, 0));
        }
        double corrupted = Metrics.value(rig.edge.metrics(), "videoedge_cache_corrupted_total");
        return "stopped (exit %d); %d of %d cache files damaged + 1 stray; after restart %d objects: %s; corrupted_total %.0f"
                .formatted(code, damaged, files.size(), objects, o.counts, corrupted);
    }

    String sigterm(int count, List<String> problems) throws Exception {
        byte[] want = rig.edge.file("bench/seg-16m.m4s");
        List<Future<long[]>> downloads = new ArrayList<>();
        long start;
        int code;
        double seconds;
        try (ExecutorService pool = Executors.newFixedThreadPool(count)) {
            for (int i = 0; i < count; i++) {
                downloads.add(pool.submit(() -> download(rig.edge.httpPort, "/bench/seg-16m.m4s", want)));
            }
            Thread.sleep(1500);
            start = System.nanoTime();
            code = rig.edge.stopProcess(Duration.ofSeconds(60));
            seconds = (System.nanoTime() - start) / 1e9;
            int complete = 0;
            int cut = 0;
            int wrong = 0;
            for (Future<long[]> f : downloads) {
                long[] r = f.get();
                if (r[1] != 0) wrong++;
                else if (r[0] == want.length) complete++;
                else cut++;
            }
            if (wrong > 0) problems.add(wrong + " downloads got wrong bytes");
            if (code != 0 && code != 143) problems.add("exit code " + code);
            double drain = 5; // drainTimeout in the Rig's config
            if (seconds > drain + 10) problems.add("took %.1f s to exit (drain %.0f s)".formatted(seconds, drain));
            rig.edge.restartProcess();
            ChaosMain.check(rig.get(rig.http(Rig.PROBE_OBJECT)), Rig.PROBE_OBJECT);
            return "exit %d after %.1f s; downloads: %d complete, %d cut short, %d wrong; restarted and serving"
                    .formatted(code, seconds, complete, cut, wrong);
        }
    }

    /** Reads a response at ~4 MiB/s; returns {body bytes read, 1 if any byte differed from {@code want}}. */
    private static long[] download(int port, String path, byte[] want) throws IOException, InterruptedException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout(60_000);
            s.getOutputStream()
                    .write(("GET " + path + " HTTP/1.1\r\nHost: edge\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            InputStream in = s.getInputStream();
            int matched = 0;
            while (matched < 4) {
                int c = in.read();
                if (c < 0) return new long[] {0, 0};
                matched = (c == (matched % 2 == 0 ? '\r' : '\n')) ? matched + 1 : (c == '\r' ? 1 : 0);
            }
            byte[] buf = new byte[64 * 1024];
            long off = 0;
            long wrong = 0;
            try {
                for (int n; off < want.length && (n = in.read(buf)) > 0; off += n) {
                    if (!Arrays.equals(buf, 0, n, want, (int) off, (int) off + n)) wrong = 1;
                    Thread.sleep(15);
                }
            } catch (IOException e) {
                // cut by the server: the bytes so far are what counts
            }
            return new long[] {off, wrong};
        }
    }
}
