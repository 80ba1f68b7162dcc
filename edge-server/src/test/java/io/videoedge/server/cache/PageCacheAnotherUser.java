package io.videoedge.server.cache;

import java.io.RandomAccessFile;
import java.nio.file.Path;

/**
 * Run as another user by {@link PageCacheIT}: asks by mincore about a file of its own and about the
 * file named on the command line (not its own), and prints both answers: {@code own=<held> other=<held>}.
 */
public final class PageCacheAnotherUser {
    private PageCacheAnotherUser() {}

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        String why = PageCache.probe(dir, PageCache.Method.MINCORE);
        if (why != null) throw new IllegalStateException(why);
        Path own = dir.resolve("own");
        java.nio.file.Files.write(own, new byte[300_000]);
        System.out.println("own=" + held(own) + " other=" + held(Path.of(args[1])));
    }

    private static boolean held(Path file) throws Exception {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
            long size = f.length();
            return PageCache.holds(f, 0, size, size);
        }
    }
}
