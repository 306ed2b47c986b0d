#!/usr/bin/env python3
"""A loopback HTTP proxy in front of the test API server that fails on purpose.

    fault_proxy.py UPSTREAM CA_FILE STATUS COUNT

The first COUNT requests get STATUS with Retry-After: 0; every later request is forwarded to UPSTREAM
(https, verified against CA_FILE) with its method, path, headers and body. Prints "PORT <n>" once listening.
"""
import http.client
import ssl
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlparse

upstream = urlparse(sys.argv[1])
context = ssl.create_default_context(cafile=sys.argv[2])
status, budget = int(sys.argv[3]), int(sys.argv[4])
seen = 0
lock = threading.Lock()


class Proxy(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def handle_any(self):
        global seen
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        with lock:
            seen += 1
            fail = seen <= budget
        if fail:
            data = b'{"kind":"Status","apiVersion":"v1","status":"Failure","message":"injected","reason":"TooManyRequests","code":%d}' % status
            self.send_response(status)
            self.send_header("Retry-After", "0")
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return
        connection = http.client.HTTPSConnection(upstream.hostname, upstream.port, context=context, timeout=30)
        headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection", "content-length")}
        connection.request(self.command, self.path, body=body, headers=headers)
        response = connection.getresponse()
        data = response.read()
        self.send_response(response.status)
        for name, value in response.getheaders():
            if name.lower() not in ("transfer-encoding", "connection", "content-length"):
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        connection.close()

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = handle_any


server = ThreadingHTTPServer(("127.0.0.1", 0), Proxy)
print("PORT %d" % server.server_address[1], flush=True)
server.serve_forever()
