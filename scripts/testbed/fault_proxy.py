#!/usr/bin/env python3
"""A fault-injecting HTTP proxy for mcloud's integration tests (stdlib only, 127.0.0.1 only).

    fault_proxy.py --upstream http://127.0.0.1:PORT [--port N] [--port-file FILE]

Prints "PORT <n>" once listening (and writes the port to FILE), then forwards every request to the upstream
(plain HTTP) until killed, except where a rule says otherwise. Rules are set over HTTP on the proxy itself:

    POST   /__fault   a JSON rule or list of rules, appended; answers the rule ids
    GET    /__fault   the rules with their hit counts, and a journal of the requests seen ("METHOD path")
    DELETE /__fault   removes every rule and clears the journal

A rule (every field but "match" is optional):
    match       substring of "METHOD path" the rule applies to ("" matches all), e.g. "POST /cdn/resources"
    times       how many matching requests it acts on, then it is spent (default: forever)
    latency_ms  wait this long before acting (alone: a slow but correct answer)
    status      answer this status without forwarding, with "body" (text) and "headers" ({name: value}),
                e.g. {"status": 429, "headers": {"Retry-After": "1"}}
    drop        "before": close the connection without forwarding (the server never sees the request);
                "after": forward, let the server act, then close without answering (a lost answer)

The first live rule that matches acts; a request no rule acts on is forwarded as it is.
"""
import argparse
import http.client
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

lock = threading.Lock()
rules = []
journal = []
next_id = [1]
upstream = None

HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "te", "trailer"}


def take_rule(line):
    """The first live rule matching the request line, with its use counted."""
    with lock:
        journal.append(line)
        for rule in rules:
            if rule.get("match", "") in line and (rule.get("times") is None or rule["hits"] < rule["times"]):
                rule["hits"] += 1
                return dict(rule)
    return None


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, code, body, headers=()):
        data = body.encode() if isinstance(body, str) else body
        self.send_response(code)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def control(self, body):
        if self.command == "GET":
            with lock:
                self.reply(200, json.dumps({"rules": rules, "journal": journal}), [("Content-Type", "application/json")])
        elif self.command == "DELETE":
            with lock:
                rules.clear()
                journal.clear()
            self.reply(204, b"")
        elif self.command == "POST":
            try:
                given = json.loads(body or b"null")
                given = given if isinstance(given, list) else [given]
                assert all(isinstance(rule, dict) for rule in given)
            except (ValueError, AssertionError):
                self.reply(400, json.dumps({"error": "a rule is a JSON object, or a list of them"}))
                return
            ids = []
            with lock:
                for rule in given:
                    rule = dict(rule, id=next_id[0], hits=0)
                    next_id[0] += 1
                    rules.append(rule)
                    ids.append(rule["id"])
            self.reply(201, json.dumps({"ids": ids}), [("Content-Type", "application/json")])
        else:
            self.reply(405, "")

    def forward(self, body):
        target = urlsplit(upstream)
        connection = http.client.HTTPConnection(target.hostname, target.port, timeout=60)
        headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP and k.lower() != "host"}
        headers["Host"] = target.netloc
        connection.request(self.command, self.path, body=body if body or self.command in ("POST", "PUT", "PATCH") else None, headers=headers)
        response = connection.getresponse()
        data = response.read()
        connection.close()
        return response.status, [(k, v) for k, v in response.getheaders() if k.lower() not in HOP_BY_HOP and k.lower() != "content-length"], data

    def handle_any(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        if self.path.split("?")[0] == "/__fault":
            self.control(body)
            return
        rule = take_rule("%s %s" % (self.command, self.path))
        if rule and rule.get("latency_ms"):
            time.sleep(rule["latency_ms"] / 1000.0)
        if rule and rule.get("drop") == "before":
            self.close_connection = True
            self.connection.close()
            return
        if rule and rule.get("status") and not rule.get("drop"):
            headers = list((rule.get("headers") or {}).items())
            self.reply(int(rule["status"]), rule.get("body", ""), headers)
            return
        try:
            status, headers, data = self.forward(body)
        except OSError as error:
            self.reply(502, json.dumps({"error": "upstream %s: %s" % (upstream, error)}))
            return
        if rule and rule.get("drop") == "after":
            self.close_connection = True
            self.connection.close()
            return
        self.reply(status, data, headers)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = handle_any


def main():
    global upstream
    parser = argparse.ArgumentParser(description="fault-injecting HTTP proxy for tests")
    parser.add_argument("--upstream", required=True, help="http://127.0.0.1:PORT of the server behind the proxy")
    parser.add_argument("--port", type=int, default=0, help="port to listen on (default: a free one)")
    parser.add_argument("--port-file", help="also write the port to this file")
    arguments = parser.parse_args()
    upstream = arguments.upstream.rstrip("/")
    server = ThreadingHTTPServer(("127.0.0.1", arguments.port), Handler)
    server.daemon_threads = True
    port = server.server_address[1]
    if arguments.port_file:
        with open(arguments.port_file, "w") as handle:
            handle.write("%d\n" % port)
    print("PORT %d" % port, flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
