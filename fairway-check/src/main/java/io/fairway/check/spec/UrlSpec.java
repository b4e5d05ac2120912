package io.fairway.check.spec;

import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * One {@code url { }} block of an HTTP_GET/SSL_GET checker.
 *
 * @param path        request path, e.g. {@code /health}
 * @param digest      lower-case hex MD5 of the response body, or {@code null} to not check the body
 * @param statusCodes accepted statuses; empty means keepalived's default 200-299
 * @param virtualHost Host header for this url, or {@code null} to inherit the checker's
 */
public record UrlSpec(String path, String digest, List<StatusRange> statusCodes, String virtualHost) {
    public UrlSpec {
        Objects.requireNonNull(path, "path");
        if (!path.startsWith("/")) {
            throw new IllegalArgumentException("url path must start with '/', got " + path);
        }
        if (digest != null) {
            digest = digest.toLowerCase(Locale.ROOT);
            if (!digest.matches("[0-9a-f]{32}")) {
                throw new IllegalArgumentException("digest must be 32 hex digits (MD5), got " + digest);
            }
        }
        statusCodes = statusCodes == null || statusCodes.isEmpty() ? List.of(StatusRange.SUCCESS)
                : List.copyOf(statusCodes);
    }

    public static UrlSpec path(String path) {
        return new UrlSpec(path, null, List.of(), null);
    }

    public boolean accepts(int status) {
        return statusCodes.stream().anyMatch(r -> r.contains(status));
    }
}
