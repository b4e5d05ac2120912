package io.fairway.check.checker;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.EventLoopGroup;
import io.netty.resolver.NoopAddressResolverGroup;

/**
 * Bootstraps for targets that were resolved at load. keepalived resolves real servers once, at load; so do we
 * (an unresolvable name is a load error), which also spares every one of thousands of checks a second a trip
 * through the resolver.
 */
final class Resolved {
    private Resolved() {
    }

    static Bootstrap bootstrap(EventLoopGroup group) {
        return new Bootstrap().group(group).resolver(NoopAddressResolverGroup.INSTANCE);
    }
}
