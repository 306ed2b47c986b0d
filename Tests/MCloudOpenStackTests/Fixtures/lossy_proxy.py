#!/usr/bin/env python3
"""A loopback HTTP proxy in front of a test bed service that loses answers on purpose.

    lossy_proxy.py UPSTREAM METHOD PATH_SUFFIX COUNT [LATE_SECONDS]

Every request is forwarded to UPSTREAM (plain http) with its method, path, headers and body. For the first COUNT
requests whose method is METHOD and whose path ends with PATH_SUFFIX, the upstream's answer is read and then
lost: only its first bytes are sent before the connection closes, as when a network fails after the server acted.
With LATE_SECONDS those requests are instead held that long before they reach UPSTREAM, as when a loaded server
works on a request after its client gave up waiting (the client's stall limit being shorter), then answered.
Prints "PORT <n>" once listening.
"""
import http.client
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlparse

upstream = urlparse(sys.argv[1])
method, suffix, budget = sys.argv[2], sys.argv[3], int(sys.argv[4])
late = float(sys.argv[5]) if len(sys.argv) > 5 else None
prefix = upstream.path.rstrip("/")
taken = 0
lock = threading.Lock()


class Proxy(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def handle_any(self):
        global taken
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        with lock:
            chosen = self.command == method and self.path.split("?")[0].endswith(suffix) and taken < budget
            if chosen:
                taken += 1
        if chosen and late is not None:
            time.sleep(late)
        connection = http.client.HTTPConnection(upstream.hostname, upstream.port, timeout=60)
        headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection", "content-length")}
        connection.request(self.command, prefix + self.path, body=body, headers=headers)
        response = connection.getresponse()
        data = response.read()
        connection.close()
        if chosen and late is None:
            # A status line and a promise of more, then the connection closes: the client has seen an answer
            # start, so libcurl cannot silently resend the request on a fresh connection.
            self.wfile.write(b"HTTP/1.1 %d Accepted\r\nContent-Length: 1000\r\nContent-Type: application/json\r\n\r\n{" % response.status)
            self.wfile.flush()
            self.close_connection = True
            return
        self.send_response(response.status)
        for name, value in response.getheaders():
            if name.lower() not in ("transfer-encoding", "connection", "content-length"):
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = handle_any


server = ThreadingHTTPServer(("127.0.0.1", 0), Proxy)
print("PORT %d" % server.server_address[1], flush=True)
server.serve_forever()
