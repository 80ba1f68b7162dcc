package io.videoedge.server.content;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

import io.videoedge.server.http.ContentTypes;
import io.videoedge.server.http.Validators;

/**
 * Files under the content root. A path resolves to a regular file whose real path (all symlinks
 * followed) is still inside the root's real path; anything else is absent, so a symlink that points
 * outside serves nothing. Files are opened only when a body is sent, and are sent with sendfile.
 */
public final class ContentStore {
    private final Path root;

    public ContentStore(Path root) throws IOException {
        this.root = root.toRealPath();
    }

    public Path root() {
        return root;
    }

    /** The file for a normalised relative path ({@link ContentPath}), or null. */
    public StoredFile find(String relativePath) throws IOException {
        if (relativePath.isEmpty()) {
            return null;
        }
        Path real;
        try {
            real = root.resolve(relativePath).toRealPath();
        } catch (NoSuchFileException e) {
            return null;
        }
        if (!real.startsWith(root)) {
            return null;
        }
        BasicFileAttributes attrs = Files.readAttributes(real, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (!attrs.isRegularFile()) {
            return null;
        }
        return new StoredFile(real, Validators.of(attrs.size(), attrs.lastModifiedTime().toMillis()), ContentTypes.of(relativePath));
    }

    /** A regular file found under the root; {@link #open()} gives the descriptor sendfile reads. */
    public record StoredFile(Path path, Validators validators, String contentType) {
        public RandomAccessFile open() throws IOException {
            return new RandomAccessFile(path.toFile(), "r");
        }
    }
}
