package io.fairway.proxy.http;

import io.netty.handler.codec.http2.Http2Headers;

/**
 * The trailer fields of a response from an HTTP/2 backend, for a client that frames them itself (an
 * HTTP/2 stream): gRPC's {@code grpc-status} and {@code grpc-message} come this way. Passed between
 * the backend's stream and the exchange like a body slice, before the end of the response.
 */
public record ResponseTrailers(Http2Headers headers) {}
