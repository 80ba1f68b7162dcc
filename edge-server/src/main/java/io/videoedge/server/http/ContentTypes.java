package io.videoedge.server.http;

import java.util.Map;

/** Content-Type by file extension, for the video formats an edge serves (and a few neighbours). */
public final class ContentTypes {
    public static final String DEFAULT = "application/octet-stream";

    private static final Map<String, String> BY_EXTENSION = Map.ofEntries(
            Map.entry("mp4", "video/mp4"),
            Map.entry("m4s", "video/iso.segment"),
            Map.entry("m4v", "video/x-m4v"),
            Map.entry("m4a", "audio/mp4"),
            Map.entry("ts", "video/mp2t"),
            Map.entry("m3u8", "application/vnd.apple.mpegurl"),
            Map.entry("mpd", "application/dash+xml"),
            Map.entry("webm", "video/webm"),
            Map.entry("vtt", "text/vtt"),
            Map.entry("aac", "audio/aac"),
            Map.entry("jpg", "image/jpeg"),
            Map.entry("png", "image/png"),
            Map.entry("json", "application/json"),
            Map.entry("txt", "text/plain"),
            Map.entry("html", "text/html"));

    private ContentTypes() {}

    public static String of(String path) {
        int dot = path.lastIndexOf('.');
        if (dot < 0 || dot < path.lastIndexOf('/')) {
            return DEFAULT;
        }
        String type = BY_EXTENSION.get(path.substring(dot + 1).toLowerCase(java.util.Locale.ROOT));
        return type != null ? type : DEFAULT;
    }
}
