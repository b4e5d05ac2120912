package io.fairway.check.spec;

import java.net.Inet6Address;
import java.net.InetSocketAddress;

/** Formats targets the way operators write them: {@code 10.0.0.1:80}, {@code [::1]:80}. */
final class Targets {
    private Targets() {
    }

    static String format(InetSocketAddress a) {
        if (a.isUnresolved()) {
            return a.getHostString() + ":" + a.getPort();
        }
        String host = a.getAddress().getHostAddress();
        return (a.getAddress() instanceof Inet6Address ? "[" + host + "]" : host) + ":" + a.getPort();
    }
}
