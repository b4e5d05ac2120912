"""A gRPC server and client for GrpcPassThroughTest, with raw bytes (no protobuf codegen).

server PORT: /svc/Echo (unary, echoes), /svc/Count (server streaming: N messages for b"N"),
  /svc/Slow (unary, answers after 3 s unless the call is cancelled first: prints "slow cancelled"
  when it is), /svc/Die (server streaming: one message, then the whole process exits).
client TARGET CALL: makes CALL through TARGET and prints one line "CALL=STATUS:DETAIL".
"""
import os
import sys
import time

import grpc


def echo(request, context):
    return request


def count(request, context):
    for i in range(int(request)):
        yield str(i).encode()


def slow(request, context):
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline:
        if not context.is_active():
            print("slow cancelled", flush=True)
            return b""
        time.sleep(0.02)
    return b"late"


def die(request, context):
    yield b"first"
    time.sleep(0.3)  # the first message goes out before the process dies
    os._exit(3)


def serve(port):
    from concurrent import futures

    h = grpc.method_handlers_generic_handler(
        "svc",
        {
            "Echo": grpc.unary_unary_rpc_method_handler(echo),
            "Count": grpc.unary_stream_rpc_method_handler(count),
            "Slow": grpc.unary_unary_rpc_method_handler(slow),
            "Die": grpc.unary_stream_rpc_method_handler(die),
        },
    )
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8), handlers=(h,))
    server.add_insecure_port("127.0.0.1:%d" % port)
    server.start()
    print("ready", flush=True)
    server.wait_for_termination()


def channel(target, ca, host):
    if ca is None:
        return grpc.insecure_channel(target)
    with open(ca, "rb") as f:
        creds = grpc.ssl_channel_credentials(root_certificates=f.read())
    return grpc.secure_channel(target, creds, options=[("grpc.ssl_target_name_override", host)])


def call(target, name, ca=None, host=None):
    ch = channel(target, ca, host)
    try:
        if name == "unary":
            r = ch.unary_unary("/svc/Echo")(b"hello", timeout=10)
            return "OK:" + r.decode()
        if name == "stream":
            r = list(ch.unary_stream("/svc/Count")(b"5", timeout=10))
            return "OK:" + ",".join(x.decode() for x in r)
        if name == "deadline":
            ch.unary_unary("/svc/Slow")(b"x", timeout=0.5)
            return "OK:"
        if name == "die":
            got = []
            for m in ch.unary_stream("/svc/Die")(b"x"):  # no deadline: an error must end it
                got.append(m.decode())
            return "OK:" + ",".join(got)
    except grpc.RpcError as e:
        return "%s:%s" % (e.code().name, e.details())
    finally:
        ch.close()


if __name__ == "__main__":
    if sys.argv[1] == "server":
        serve(int(sys.argv[2]))
    else:
        # client TARGET NAME [CA HOST]: over TLS when a CA (and the name to check) is given
        tls = sys.argv[4:6] if len(sys.argv) >= 6 else [None, None]
        print("%s=%s" % (sys.argv[3], call(sys.argv[2], sys.argv[3], *tls)), flush=True)
