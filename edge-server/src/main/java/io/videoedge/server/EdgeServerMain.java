package io.videoedge.server;

import io.videoedge.server.config.ConfigException;
import io.videoedge.server.config.ConfigLoader;
import io.videoedge.server.nativelib.NativeRuntime;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** Entry point: {@code java -cp 'edge-server.jar:lib/*' io.videoedge.server.EdgeServerMain --config FILE}. */
@Command(
        name = "edge-server",
        mixinStandardHelpOptions = true,
        versionProvider = EdgeServerMain.Version.class,
        description =
                "The VideoEdge one-nio video server: HTTP/1.1 and TLS, ranges, sendfile, a memory and disk cache in front of an origin, Prometheus metrics.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:stopped normally (or --check passed)",
            "2:invalid configuration",
            "3:the one-nio native library is not usable",
            "1:failed to start"
        })
public final class EdgeServerMain implements Callable<Integer> {
    private static final Logger log = LoggerFactory.getLogger(EdgeServerMain.class);

    @Option(
            names = {"-c", "--config"},
            required = true,
            paramLabel = "FILE",
            description =
                    "Config file in one-nio ConfigParser format (see edge-server/README.md), e.g. /etc/videoedge/edge-server.yaml")
    Path config;

    @Option(
            names = "--reload-interval",
            paramLabel = "DURATION",
            defaultValue = "2s",
            converter = DurationConverter.class,
            description =
                    "How often the config file is read again to apply live changes without a restart (e.g. 2s, 500ms; 0 disables). "
                            + "Fields outside the live set are not applied; see edge-server/README.md. Default: ${DEFAULT-VALUE}.")
    Duration reloadInterval;

    @Option(names = "--check", description = "Validate the config and the native library, print the result, and exit.")
    boolean check;

    @Option(
            names = "--allow-java-sockets",
            description =
                    "Start even when one-nio's native library cannot be loaded (plain Java sockets: no TLS, no sendfile, no pinning).")
    boolean allowJavaSockets;

    public static void main(String[] args) {
        System.exit(new CommandLine(new EdgeServerMain()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        ConfigLoader.Loaded loaded;
        try {
            loaded = ConfigLoader.read(config);
        } catch (ConfigException e) {
            System.err.println(e.getMessage());
            log.atError()
                    .addKeyValue("file", config.toString())
                    .addKeyValue("problems", e.problems())
                    .log("invalid configuration");
            return 2;
        }
        NativeRuntime nr = NativeRuntime.detect();
        log.atInfo()
                .addKeyValue("origin", nr.origin())
                .addKeyValue("resource", nr.resource())
                .addKeyValue("path", nr.libraryPath())
                .addKeyValue("build", nr.buildInfo())
                .addKeyValue("openssl", nr.openssl())
                .addKeyValue("nativeSockets", nr.nativeSockets())
                .log("one-nio native library");
        if (!nr.usable() && !allowJavaSockets) {
            System.err.println(
                    "one-nio's native library is not usable (" + nr.origin() + ", resource " + nr.resource()
                            + "): without it there is no TLS, sendfile or CPU pinning. See edge-server/README.md, or pass --allow-java-sockets.");
            return 3;
        }
        if (check) {
            System.out.println("configuration " + config + " is valid; native library " + nr.origin() + " "
                    + nr.buildInfo() + "; config sha256 " + loaded.sha256());
            return 0;
        }
        EdgeService service;
        try {
            service = EdgeService.start(config, loaded, reloadInterval);
        } catch (IOException | RuntimeException e) {
            // one line a person can act on (the cause chain is in the structured log line)
            System.err.println("edge server failed to start: " + e.getMessage());
            log.atError().setCause(e).addKeyValue("reason", e.getMessage()).log("failed to start");
            return 1;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(service::shutdown, "edge-shutdown"));
        service.awaitShutdown();
        return 0;
    }

    /** "0" or a number with ms, s, m or h: the units of the config file's durations. */
    static final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
        private static final Pattern FORMAT = Pattern.compile("(\\d+)(ms|s|m|h)");

        @Override
        public Duration convert(String value) {
            if (value.equals("0")) return Duration.ZERO;
            Matcher m = FORMAT.matcher(value);
            if (!m.matches()) {
                throw new CommandLine.TypeConversionException(
                        "'" + value + "' is not a duration: use 0 or a number with ms, s, m or h, e.g. 2s");
            }
            long n = Long.parseLong(m.group(1));
            return switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                default -> Duration.ofHours(n);
            };
        }
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = EdgeServerMain.class.getPackage().getImplementationVersion();
            return new String[] {"edge-server " + (v == null ? "dev" : v)};
        }
    }
}
