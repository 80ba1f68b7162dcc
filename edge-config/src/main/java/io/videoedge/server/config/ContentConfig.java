package io.videoedge.server.config;

import one.nio.config.Config;
import one.nio.config.Converter;

/**
 * Local content served by path; requests never leave this directory (symlinks included).
 * {@code fileCacheValid}: how long an opened file and its metadata are reused before the path is
 * resolved and stat'ed again (nginx: open_file_cache_valid).
 */
@Config
public class ContentConfig {
    public String root;

    @Converter(method = "time")
    public int fileCacheValid = 1_000;
}
