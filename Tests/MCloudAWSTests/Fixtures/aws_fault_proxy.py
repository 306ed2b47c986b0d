#!/usr/bin/env python3
"""A loopback HTTP proxy in front of moto that fails AWS Query/EC2 actions on purpose.

    aws_fault_proxy.py UPSTREAM ACTION=MODE:COUNT[,ACTION=MODE:COUNT...]

Every request is forwarded to UPSTREAM (plain http) with its method, path, headers (Host included, so SigV4
signatures still match) and body. The first COUNT requests of ACTION (the form body's Action) fail by MODE:
  drop      forwarded, then the answer is lost: a status line and part of a body, then the connection closes
  throttle  not forwarded; 400 with EC2's RequestLimitExceeded error
  503       not forwarded; 503 with EC2's Unavailable error
GET /__faults answers how many of each were injected, as JSON. Prints "PORT <n>" once listening.
"""
import http.client
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

upstream = urlparse(sys.argv[1])
rules = {}
for item in sys.argv[2].split(","):
    action, spec = item.split("=")
    mode, count = spec.split(":")
    rules[action] = [mode, int(count)]
injected = {}
lock = threading.Lock()
ERROR = b'<Response><Errors><Error><Code>%s</Code><Message>injected</Message></Error></Errors><RequestID>fault</RequestID></Response>'


class Proxy(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, status, data):
        self.send_response(status)
        self.send_header("Content-Type", "text/xml")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def handle_any(self):
        if self.path == "/__faults":
            with lock:
                self.answer(200, json.dumps(injected).encode())
            return
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        action = parse_qs(body.decode("utf-8", "replace")).get("Action", [""])[0]
        mode = None
        with lock:
            rule = rules.get(action)
            if rule and rule[1] > 0:
                rule[1] -= 1
                mode = rule[0]
                injected[action + "=" + mode] = injected.get(action + "=" + mode, 0) + 1
        if mode == "throttle":
            self.answer(400, ERROR % b"RequestLimitExceeded")
            return
        if mode == "503":
            self.answer(503, ERROR % b"Unavailable")
            return
        connection = http.client.HTTPConnection(upstream.hostname, upstream.port, timeout=60)
        headers = {k: v for k, v in self.headers.items() if k.lower() not in ("connection", "content-length")}
        connection.request(self.command, self.path, body=body or None, headers=headers)
        response = connection.getresponse()
        data = response.read()
        connection.close()
        if mode == "drop":
            # A status line and a promise of more, then the connection closes, as when a network fails after
            # the server acted: libcurl cannot silently resend the request on a fresh connection.
            self.wfile.write(b"HTTP/1.1 %d OK\r\nContent-Length: 1000\r\nContent-Type: text/xml\r\n\r\n<" % response.status)
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

    do_GET = do_POST = do_PUT = do_HEAD = do_DELETE = handle_any


server = ThreadingHTTPServer(("127.0.0.1", 0), Proxy)
print("PORT %d" % server.server_address[1], flush=True)
server.serve_forever()
