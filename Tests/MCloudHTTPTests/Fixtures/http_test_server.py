#!/usr/bin/env python3
"""A small real HTTP(S) server for MCloudHTTP's tests, on 127.0.0.1 only.

    http_test_server.py [--tls CERT KEY] [--client-ca CA]

Prints "PORT <n>" once listening, then serves until killed:
  /echo                     the request as JSON: method, path, headers, body, client certificate CN
  /status/<code>            that status with a small body
  /flaky/<key>/<n>/<code>   <code> with Retry-After: 0 for the first <n> requests of <key>, then 200
  /slow/<seconds>           waits, then 200
  /huge                     200 with Content-Length 2 GiB, 16 bytes, then nothing until the client goes away
  /endless                  200 with a chunked body that never ends
  /trickle/<seconds>        200 with a chunked body of one byte every <seconds>, never ending
  /stall/<key>/<n>          200 with Content-Length 1000, <n> bytes, then nothing; counts the requests of <key>
  /count/<key>              how many requests /stall/<key> had
"""
import json
import select
import ssl
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

counts = {}
lock = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, code, body, headers=()):
        data = body.encode() if isinstance(body, str) else body
        if code in (204, 304):
            data = b""  # these statuses carry no body, and a keep-alive client would misread one
        self.send_response(code)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def handle_any(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        parts = self.path.split("?")[0].strip("/").split("/")
        if parts[0] == "echo":
            cn = None
            cert = self.connection.getpeercert() if hasattr(self.connection, "getpeercert") else None
            if cert:
                for rdn in cert.get("subject", ()):
                    for key, value in rdn:
                        if key == "commonName":
                            cn = value
            self.reply(200, json.dumps({"method": self.command, "path": self.path,
                                        "headers": {k.lower(): v for k, v in self.headers.items()},
                                        "body": body.decode("utf-8", "replace"), "clientCN": cn}),
                       [("Content-Type", "application/json")])
        elif parts[0] == "status":
            self.reply(int(parts[1]), "status %s" % parts[1])
        elif parts[0] == "flaky":
            key, n, code = parts[1], int(parts[2]), int(parts[3])
            with lock:
                counts[key] = counts.get(key, 0) + 1
                seen = counts[key]
            if seen <= n:
                self.reply(code, "try again", [("Retry-After", "0")])
            else:
                self.reply(200, "ok after %d" % seen)
        elif parts[0] == "slow":
            time.sleep(float(parts[1]))
            self.reply(200, "slow")
        elif parts[0] in ("huge", "stall"):
            if parts[0] == "stall":
                with lock:
                    counts[parts[1]] = counts.get(parts[1], 0) + 1
            sent = 16 if parts[0] == "huge" else int(parts[2])
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "2147483648" if parts[0] == "huge" else "1000")
            self.end_headers()
            self.wfile.write(b"[" * sent)
            self.wfile.flush()
            self.hold()
        elif parts[0] in ("endless", "trickle"):
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self.close_connection = True
            chunk, pause = (b" " * 65536, 0) if parts[0] == "endless" else (b" ", float(parts[1]))
            started = time.time()
            try:
                while time.time() - started < 120:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                    self.wfile.flush()
                    time.sleep(pause)
            except OSError:
                pass
        elif parts[0] == "count":
            with lock:
                self.reply(200, str(counts.get(parts[1], 0)))
        else:
            self.reply(404, "not found")

    def hold(self):
        """Nothing more is sent; returns once the client closes the connection, or after a minute."""
        self.close_connection = True
        started = time.time()
        while time.time() - started < 60:
            if select.select([self.connection], [], [], 0.2)[0]:
                try:
                    if not self.connection.recv(4096):
                        return
                except OSError:
                    return

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = handle_any


def main():
    args = sys.argv[1:]
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    if "--tls" in args:
        i = args.index("--tls")
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(args[i + 1], args[i + 2])
        if "--client-ca" in args:
            context.verify_mode = ssl.CERT_REQUIRED
            context.load_verify_locations(args[args.index("--client-ca") + 1])
        server.socket = context.wrap_socket(server.socket, server_side=True)
    print("PORT %d" % server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
