package io.fairway.daemon.admin;

import java.util.concurrent.CompletableFuture;

/** What the admin listener serves; answers may come later (a drain that waits for idle). */
@FunctionalInterface
public interface AdminRoutes {
  CompletableFuture<AdminResponse> handle(AdminRequest request);
}
