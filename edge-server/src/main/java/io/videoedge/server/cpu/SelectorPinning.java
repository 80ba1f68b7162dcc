package io.videoedge.server.cpu;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Reads back from the kernel which CPUs each selector thread may run on: the thread names carry the
 * selector number ({@code edge-sel-N}, short enough for the 15-character comm), and
 * /proc/self/task/TID/status has the affinity the kernel actually applied.
 */
public final class SelectorPinning {
    public static final String THREAD_NAME_FORMAT = "edge-sel-%d";
    private static final Pattern NAME = Pattern.compile("edge-sel-(\\d+)");

    private SelectorPinning() {}

    public record Observed(int selector, int tid, String allowedCpus) {}

    public static List<Observed> observe() throws IOException {
        List<Observed> result = new ArrayList<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                String comm;
                try {
                    comm = Files.readString(task.resolve("comm")).trim();
                } catch (IOException e) {
                    continue; // the thread ended meanwhile
                }
                Matcher m = NAME.matcher(comm);
                if (m.matches()) {
                    int[] cpus = CpuList.allowed(task.resolve("status"));
                    result.add(new Observed(
                            Integer.parseInt(m.group(1)),
                            Integer.parseInt(task.getFileName().toString()),
                            CpuList.format(cpus)));
                }
            }
        }
        result.sort((a, b) -> Integer.compare(a.selector(), b.selector()));
        return result;
    }
}
