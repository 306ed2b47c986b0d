#!/usr/bin/env python3
"""A fault-injecting HTTP(S) proxy for mcloud's integration tests and the chaos harness (stdlib only, 127.0.0.1 only).

    fault_proxy.py --upstream URL [--upstream URL ...] [--port N ...] [--port-file FILE] [--tls CERT KEY]
                   [--upstream-ca FILE] [--seed N] [--remember-header NAME]

Listens on one port per upstream (the n-th --port for the n-th --upstream; a free one when not given) and prints
"PORT <n>" for each, in order, once listening (the first also goes to --port-file). Every request is forwarded to
its port's upstream until the proxy is killed, except where a rule says otherwise. An https upstream is verified
against --upstream-ca; --tls makes the proxy itself speak TLS with that certificate. The Host header is kept as the
client sent it (AWS signatures cover it). With several upstreams, each upstream's origin (scheme://host:port) in an
answer's body or Location header is replaced by the proxy's own origin for it, so the URLs a service catalog hands
out (Keystone's) lead back through the proxy. The values of a --remember-header in answers (Keystone's
X-Subject-Token) are kept for GET /__fault, so a test can look for those secrets in what its client wrote.

Rules are set over HTTP on any of the proxy's ports; they act on all of them unless they name one:

    POST   /__fault   a JSON rule or list of rules, appended; answers the rule ids
    GET    /__fault   the rules with their hit counts, the journal of requests seen ("METHOD path"), the list of
                      injections ({"rule", "mode", "line"}) and the remembered header values
    DELETE /__fault   removes every rule and clears the journal and the injections

A rule (every field but "match" is optional):
    match       substring of "METHOD path" the rule applies to ("" matches all), e.g. "POST /cdn/resources"
    port        only requests to this one of the proxy's ports (one upstream)
    times       how many matching requests it acts on, then it is spent (default: forever)
    rate        the chance (0 to 1) that it acts on a matching request (default 1), drawn from --seed
    latency_ms  wait this long before acting (alone: a slow but correct answer)
    status      answer this status without forwarding, with "body" (text) and "headers" ({name: value}),
                e.g. {"status": 429, "headers": {"Retry-After": "1"}}
    drop        "before": close the connection without forwarding (the server never sees the request);
                "after": forward, let the server act, then close without answering (a lost answer)
    blackhole   true: read the request and never answer, holding the connection until the client gives up or the
                rule is removed (a partition)
    corrupt     a mode or a list of modes (one drawn per request): forward, let the server act, then answer badly:
                  truncate      the status, headers and full Content-Length, half the body, then the connection closes
                  retype        a value of the answer changes type: a JSON string becomes 7, a number "7"; an XML
                                element's text becomes a child element
                  drop-field    a field of the answer (JSON key, XML element) is left out
                  invalid-utf8  bytes that are not UTF-8 inside the body
                  stall         the status, headers and full Content-Length, half the body, then nothing
                  huge-length   Content-Length: 2147483648 and a few bytes, then nothing (the body stalls)
                  endless       a chunked body that never ends
                  html-200      status 200 with an HTML error page
                  content-type  the body as it was, labelled text/html
                  empty         status 200 with no body
                  deep-nesting  status 200 with JSON nested 200,000 levels deep
                  deep-xml      status 200 with XML elements nested 200,000 levels deep
                  same-token    a listing's answer says more follow, and the page its token asks for gives the same
                                token again (S3, CloudFront, EC2, RDS tokens; OpenStack next links)
                  new-token     a listing's answer says more follow, and every page after it gives a new token, forever
                  status-500    status 500 with an HTML error page

The first live rule that matches (and whose rate draw succeeds) acts; a request no rule acts on is forwarded as it is.
"""
import argparse
import http.client
import json
import random
import select
import ssl
import sys
import threading
import time
import xml.etree.ElementTree as ElementTree
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote_plus, urlsplit

lock = threading.Lock()
rules = []
journal = []
injections = []
remembered = []
remember_header = None
next_id = [1]
generator = random.Random(0)
upstream_context = None
# (upstream origin, proxy origin) pairs for the rewriting of answers; empty with one upstream.
origins = []

HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "te", "trailer"}
MODES = ["truncate", "stall", "retype", "drop-field", "invalid-utf8", "huge-length", "endless", "html-200", "content-type", "empty",
         "deep-nesting", "status-500", "deep-xml", "same-token", "new-token"]
HTML = b"<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1><hr><center>nginx</center></body></html>\n"
# How long a stalled or endless answer is kept up at most when the client never gives up.
HOLD_SECONDS = 900
# Page tokens an endless listing handed out: token -> (mode, page template, headers); a request that carries one is
# answered from the template by the proxy itself, whatever the rules say, so the listing goes on without upstream.
minted = {}
minted_count = [0]
# The elements that say "more follow" in each AWS listing, by the answer's root element: (flag, token elements).
AWS_PAGING = {
    "ListBucketResult": ("IsTruncated", ["NextContinuationToken"]),
    "ListVersionsResult": ("IsTruncated", ["NextKeyMarker", "NextVersionIdMarker"]),
    "DistributionList": ("IsTruncated", ["NextMarker"]),
    "DescribeInstancesResponse": (None, ["nextToken"]),
    "DescribeVolumesResponse": (None, ["nextToken"]),
    "DescribeDBInstancesResponse": (None, ["DescribeDBInstancesResult/Marker"]),
}


def take_rule(line, port):
    """The first live rule matching the request line whose rate draw succeeds, with its use counted."""
    with lock:
        journal.append(line)
        for rule in rules:
            if rule.get("match", "") not in line or (rule.get("times") is not None and rule["hits"] >= rule["times"]):
                continue
            if rule.get("port") is not None and int(rule["port"]) != port:
                continue
            if generator.random() >= float(rule.get("rate", 1)):
                continue
            rule["hits"] += 1
            chosen = dict(rule)
            modes = rule.get("corrupt")
            if modes:
                chosen["corrupt"] = generator.choice(modes) if isinstance(modes, list) else modes
                injections.append({"rule": rule["id"], "mode": chosen["corrupt"], "line": line})
            elif rule.get("blackhole"):
                injections.append({"rule": rule["id"], "mode": "blackhole", "line": line})
            return chosen
    return None


def rule_alive(rule_id):
    with lock:
        return any(rule["id"] == rule_id for rule in rules)


def rewrite(data):
    for upstream, proxy in origins:
        data = data.replace(upstream.encode(), proxy.encode())
    return data


def retyped_json(value, choose):
    """The value with one scalar changed to another type (a string to 7, a number or boolean to "7")."""
    places = []

    def walk(node, path):
        if isinstance(node, dict):
            for key, item in node.items():
                walk(item, path + [key])
        elif isinstance(node, list):
            for index, item in enumerate(node):
                walk(item, path + [index])
        elif path:
            places.append(path)

    walk(value, [])
    if not places:
        return 7
    path = choose(places)
    node = value
    for step in path[:-1]:
        node = node[step]
    old = node[path[-1]]
    node[path[-1]] = 7 if isinstance(old, str) else "7"
    return value


def dropped_json(value, choose):
    """The value with one object key left out."""
    places = []

    def walk(node):
        if isinstance(node, dict):
            for key, item in node.items():
                places.append((node, key))
                walk(item)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(value)
    if places:
        node, key = choose(places)
        del node[key]
    return value


def corrupted_body(mode, data, choose):
    """The body a corruption mode makes of a full answer; None when the body is not JSON or XML."""
    try:
        value = json.loads(data)
        change = retyped_json if mode == "retype" else dropped_json
        return json.dumps(change(value, choose)).encode()
    except ValueError:
        pass
    try:
        root = ElementTree.fromstring(data)
    except ElementTree.ParseError:
        return None
    elements = [(parent, child) for parent in root.iter() for child in list(parent)]
    if not elements:
        return None
    parent, child = choose(elements)
    if mode == "retype":
        text = child.text
        child.text = None
        ElementTree.SubElement(child, "value").text = text or "7"
    else:
        parent.remove(child)
    return ElementTree.tostring(root)


def local(tag):
    return tag.rsplit("}", 1)[-1]


def new_token():
    with lock:
        minted_count[0] += 1
        return "chaos-page-%d" % minted_count[0]


def paged_xml(data, token):
    """An AWS listing's answer saying that the page `token` names follows; None when it is no listing."""
    try:
        root = ElementTree.fromstring(data)
    except ElementTree.ParseError:
        return None
    paging = AWS_PAGING.get(local(root.tag))
    if paging is None:
        return None
    namespace = root.tag[: root.tag.index("}") + 1] if root.tag.startswith("{") else ""
    if namespace:
        ElementTree.register_namespace("", namespace[1:-1])
    flag, elements = paging

    def element(path):
        node = root
        for name in path.split("/"):
            found = next((child for child in node if local(child.tag) == name), None)
            node = found if found is not None else ElementTree.SubElement(node, namespace + name)
        return node

    if flag:
        element(flag).text = "true"
    for path in elements:
        element(path).text = token
    return ElementTree.tostring(root)


def paged_json(data, token):
    """An OpenStack listing whose last item's ID is `token`, with a next link; None when it is no listing."""
    try:
        value = json.loads(data)
    except ValueError:
        return None
    if not isinstance(value, dict):
        return None
    lists = [key for key, items in value.items() if isinstance(items, list) and items and isinstance(items[-1], dict) and "id" in items[-1]]
    if not lists:
        return None
    key = lists[0]
    if token is not None:
        value[key][-1]["id"] = token
    links = "links" if key == "instances" else key + "_links"
    value[links] = [{"rel": "next", "href": "http://chaos.invalid/?marker=%s" % value[key][-1]["id"]}]
    return json.dumps(value).encode(), value[key][-1]["id"]


def endless_page(mode, data, token=None):
    """(body, the token it hands out) of an endless listing's page, or None when the answer is no listing. The
    first page hands out a new token; after that same-token hands out the one asked with, new-token a new one."""
    handed = token if (mode == "same-token" and token) else new_token()
    page = paged_xml(data, handed)
    if page is not None:
        return page, handed
    # OpenStack's token is the last item's ID: the first page keeps its own, later ones get the token handed out.
    paged = paged_json(data, handed if token else None)
    return paged


def minted_in(request):
    """The token the proxy handed out that this request (its path or form body) carries, if any. An OpenStack
    token is a real item's ID, so only `marker=ID` counts for it."""
    with lock:
        tokens = list(minted)
    if not tokens:
        return None
    text = unquote_plus(request)
    return next((token for token in tokens if (token if token.startswith("chaos-page-") else "marker=" + token) in text), None)


def invalid_utf8(data):
    """Bytes that are not UTF-8 inside the first string of the body (or at its start)."""
    quote = data.find(b'"')
    at = quote + 1 if quote >= 0 else 0
    return data[:at] + b"\xff\xfe\xc3\x28" + data[at:]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    upstream = None
    own_origin = None

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
                self.reply(200, json.dumps({"rules": rules, "journal": journal, "injections": injections, "remembered": remembered}),
                           [("Content-Type", "application/json")])
        elif self.command == "DELETE":
            with lock:
                rules.clear()
                journal.clear()
                injections.clear()
            self.reply(204, b"")
        elif self.command == "POST":
            try:
                given = json.loads(body or b"null")
                given = given if isinstance(given, list) else [given]
                assert all(isinstance(rule, dict) for rule in given)
                for rule in given:
                    modes = rule.get("corrupt")
                    listed = modes if isinstance(modes, list) else ([modes] if modes else [])
                    assert all(mode in MODES for mode in listed), "unknown corrupt mode"
            except (ValueError, AssertionError):
                self.reply(400, json.dumps({"error": "a rule is a JSON object, or a list of them; corrupt modes: %s" % ", ".join(MODES)}))
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
        target = urlsplit(self.upstream)
        if target.scheme == "https":
            connection = http.client.HTTPSConnection(target.hostname, target.port, timeout=120, context=upstream_context)
        else:
            connection = http.client.HTTPConnection(target.hostname, target.port, timeout=120)
        headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
        connection.request(self.command, self.path, body=body if body or self.command in ("POST", "PUT", "PATCH") else None, headers=headers)
        response = connection.getresponse()
        data = response.read()
        connection.close()
        kept = []
        for name, value in response.getheaders():
            if remember_header and name.lower() == remember_header:
                with lock:
                    remembered.append(value)
            if name.lower() in HOP_BY_HOP or name.lower() == "content-length":
                continue
            kept.append((name, rewrite(value.encode("latin-1")).decode("latin-1") if name.lower() == "location" else value))
        return response.status, kept, rewrite(data) if origins else data

    def hold(self, rule_id=None):
        """Keeps the connection open without a byte until the client goes away, the rule is removed, or a long time."""
        self.close_connection = True
        deadline = time.time() + HOLD_SECONDS
        while time.time() < deadline and (rule_id is None or rule_alive(rule_id)):
            readable, _, _ = select.select([self.connection], [], [], 0.5)
            if not readable:
                continue
            try:
                if self.connection.recv(4096) == b"":
                    return  # the client closed its side
            except (OSError, ssl.SSLError, ValueError):
                return

    def begin(self, status, headers, framing, first):
        """The status line, the headers with one framing header of the caller's, and the first bytes of a body."""
        self.send_response(status)
        for name, value in headers + [framing]:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(first)
        self.wfile.flush()

    def corrupt(self, mode, status, headers, data):
        content_type = [(name, value) for name, value in headers if name.lower() == "content-type"]
        others = [(name, value) for name, value in headers if name.lower() != "content-type"]
        if mode in ("truncate", "stall"):
            self.begin(status, headers, ("Content-Length", str(len(data))), data[: len(data) // 2])
            if mode == "stall":
                self.hold()
            self.close_connection = True
        elif mode in ("retype", "drop-field"):
            changed = corrupted_body(mode, data, lambda items: items[int(generator.random() * len(items))])
            self.reply(status, changed if changed is not None else invalid_utf8(data), headers)
        elif mode == "invalid-utf8":
            self.reply(status, invalid_utf8(data), headers)
        elif mode == "huge-length":
            self.begin(status, headers, ("Content-Length", "2147483648"), data[:16])
            self.hold()
        elif mode == "endless":
            self.begin(status, headers, ("Transfer-Encoding", "chunked"), b"1\r\n[\r\n")
            self.close_connection = True
            chunk = b" " * 65536
            frame = b"%x\r\n%s\r\n" % (len(chunk), chunk)
            deadline = time.time() + HOLD_SECONDS
            try:
                while time.time() < deadline:
                    self.wfile.write(frame)
            except (OSError, ssl.SSLError):
                return
        elif mode == "html-200":
            self.reply(200, HTML, others + [("Content-Type", "text/html")])
        elif mode == "content-type":
            self.reply(status, data, others + [("Content-Type", "text/html; charset=iso-8859-1")])
        elif mode == "empty":
            self.reply(200, b"", others + content_type)
        elif mode == "deep-nesting":
            self.reply(200, b"[" * 200000 + b"]" * 200000, others + [("Content-Type", "application/json")])
        elif mode == "deep-xml":
            self.reply(200, b"<a>" * 200000 + b"</a>" * 200000, others + [("Content-Type", "application/xml")])
        elif mode in ("same-token", "new-token"):
            self.endless(mode, status, headers, data)
        elif mode == "status-500":
            self.reply(500, HTML.replace(b"502 Bad Gateway", b"500 Internal Server Error"), others + [("Content-Type", "text/html")])

    def endless(self, mode, status, headers, data, token=None):
        """Answers a listing as a page of an endless one, remembering the token it hands out."""
        page = endless_page(mode, data, token) if 200 <= status < 300 else None
        if page is None:
            self.reply(status, invalid_utf8(data), headers)
            return
        body, handed = page
        with lock:
            minted[handed] = (mode, data, headers)
        self.reply(status, body, headers)

    def handle_any(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        if self.path.split("?")[0] == "/__fault":
            self.control(body)
            return
        token = minted_in(self.path + "?" + body.decode("utf-8", "replace"))
        if token is not None:
            with lock:
                mode, template, headers = minted[token]
            self.endless(mode, 200, headers, template, token)
            return
        rule = take_rule("%s %s" % (self.command, self.path), self.server.server_address[1])
        if rule and rule.get("latency_ms"):
            time.sleep(rule["latency_ms"] / 1000.0)
        if rule and rule.get("blackhole"):
            self.hold(rule["id"])
            return
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
        except (OSError, http.client.HTTPException) as error:
            self.reply(502, json.dumps({"error": "upstream %s: %s" % (self.upstream, error)}))
            return
        if rule and rule.get("drop") == "after":
            self.close_connection = True
            self.connection.close()
            return
        if rule and rule.get("corrupt"):
            try:
                self.corrupt(rule["corrupt"], status, headers, data)
            except (OSError, ssl.SSLError):
                self.close_connection = True
            return
        self.reply(status, data, headers)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = handle_any


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128
    tls = None

    def finish_request(self, request, client_address):
        # The TLS handshake runs in the connection's own thread, so a slow client never holds up the others.
        if self.tls:
            try:
                request = self.tls.wrap_socket(request, server_side=True)
            except (OSError, ssl.SSLError):
                return
        super().finish_request(request, client_address)

    def handle_error(self, request, client_address):
        pass  # a client that went away mid-answer is what the faults are for


def main():
    global upstream_context, generator, remember_header
    parser = argparse.ArgumentParser(description="fault-injecting HTTP proxy for tests")
    parser.add_argument("--upstream", action="append", required=True, help="http(s)://127.0.0.1:PORT of a server behind the proxy")
    parser.add_argument("--port", type=int, action="append", default=[], help="port to listen on for the upstream of the same rank (default: a free one)")
    parser.add_argument("--port-file", help="also write the first port to this file")
    parser.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"), help="serve TLS with this certificate and key")
    parser.add_argument("--upstream-ca", help="CA file that https upstreams are verified against")
    parser.add_argument("--seed", type=int, default=0, help="seed of the rate draws and corruption choices")
    parser.add_argument("--remember-header", help="keep the values of this answer header for GET /__fault")
    arguments = parser.parse_args()
    remember_header = arguments.remember_header.lower() if arguments.remember_header else None
    generator = random.Random(arguments.seed)
    upstream_context = ssl.create_default_context(cafile=arguments.upstream_ca) if arguments.upstream_ca else ssl.create_default_context()
    servers = []
    for index, upstream in enumerate(arguments.upstream):
        handler = type("Handler%d" % index, (Handler,), {"upstream": upstream.rstrip("/")})
        port = arguments.port[index] if index < len(arguments.port) else 0
        server = Server(("127.0.0.1", port), handler)
        if arguments.tls:
            server.tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            server.tls.load_cert_chain(arguments.tls[0], arguments.tls[1])
        handler.own_origin = "%s://127.0.0.1:%d" % ("https" if arguments.tls else "http", server.server_address[1])
        servers.append(server)
    if len(servers) > 1:
        for server in servers:
            origin = urlsplit(server.RequestHandlerClass.upstream)
            origins.append(("%s://%s" % (origin.scheme, origin.netloc), server.RequestHandlerClass.own_origin))
    if arguments.port_file:
        with open(arguments.port_file, "w") as handle:
            handle.write("%d\n" % servers[0].server_address[1])
    for server in servers:
        print("PORT %d" % server.server_address[1], flush=True)
    for server in servers[1:]:
        threading.Thread(target=server.serve_forever, daemon=True).start()
    servers[0].serve_forever()


if __name__ == "__main__":
    sys.exit(main())
