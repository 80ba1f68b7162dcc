package io.videoedge.server.config;

import one.nio.config.Config;

/** Local content served by path; requests never leave this directory (symlinks included). */
@Config
public class ContentConfig {
    public String root;
}
