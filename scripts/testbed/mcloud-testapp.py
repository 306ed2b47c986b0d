#!/usr/bin/env python3
"""The test application every service runs on the beds: it exercises each edge mcloud wires, by traffic.

  GET /healthz   200 "ok"
  GET /write     a row with its commit time into each PostgreSQL database whose URI the pod's Secrets give
                 (`<NAME>_URI=postgresql://...`, as mcloud's connection Secrets do): verified TLS, SCRAM-SHA-256;
                 200 with {"NAME": {"id": N, "at": "..."}} when every write committed, else 502 with the errors
  GET /call      GET /healthz of each service in MCLOUD_CALLS (comma-separated host[:port], in-cluster names);
                 200 with {"host": 200, ...} when every one answered 200, else 502

Standard library only, so that any Debian root with python3 is its image. PostgreSQL's wire protocol (version 3, the
SSLRequest, SCRAM-SHA-256 without channel binding, simple queries) is written out here for that reason. Listens on
PORT (default 8080; 0 for any free port, which it logs on stderr). Secrets never appear in its answers or its log.
"""

import base64
import hashlib
import hmac
import http.server
import json
import os
import secrets
import signal
import socket
import socketserver
import ssl
import struct
import sys
import urllib.error
import urllib.parse
import urllib.request

TABLE = "mcloud_writes"


class DatabaseError(Exception):
    pass


class PostgresConnection:
    """One connection over verified TLS, authenticated by SCRAM-SHA-256, for simple queries."""

    def __init__(self, uri, timeout=10):
        url = urllib.parse.urlsplit(uri)
        if url.scheme not in ("postgresql", "postgres"):
            raise DatabaseError("not a PostgreSQL URI")
        query = dict(urllib.parse.parse_qsl(url.query))
        if query.get("sslmode", "verify-full") != "verify-full":
            raise DatabaseError("sslmode must be verify-full")
        self.user = urllib.parse.unquote(url.username or "")
        self.password = urllib.parse.unquote(url.password or "")
        database = urllib.parse.unquote(url.path.lstrip("/")) or self.user
        host, port = url.hostname, url.port or 5432
        raw = socket.create_connection((query.get("hostaddr", host), port), timeout=timeout)
        raw.sendall(struct.pack("!ii", 8, 80877103))
        if raw.recv(1) != b"S":
            raw.close()
            raise DatabaseError("the server refused TLS")
        context = ssl.create_default_context(cafile=query.get("sslrootcert"))
        self.sock = context.wrap_socket(raw, server_hostname=host)
        self.buffer = b""
        parameters = b"user\0" + self.user.encode() + b"\0database\0" + database.encode() + b"\0\0"
        body = struct.pack("!i", 196608) + parameters
        self.sock.sendall(struct.pack("!i", len(body) + 4) + body)
        self._authenticate()

    def _read(self, count):
        while len(self.buffer) < count:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise DatabaseError("the server closed the connection")
            self.buffer += chunk
        data, self.buffer = self.buffer[:count], self.buffer[count:]
        return data

    def _message(self):
        kind, length = struct.unpack("!ci", self._read(5))
        return kind, self._read(length - 4)

    def _send(self, kind, body):
        self.sock.sendall(kind + struct.pack("!i", len(body) + 4) + body)

    @staticmethod
    def _error(body):
        fields = {}
        for part in body.split(b"\0"):
            if part:
                fields[part[:1]] = part[1:].decode(errors="replace")
        return DatabaseError("%s: %s" % (fields.get(b"S", "ERROR"), fields.get(b"M", "unknown error")))

    def _authenticate(self):
        nonce = base64.b64encode(secrets.token_bytes(18)).decode()
        client_first_bare = "n=,r=" + nonce
        server_first = None
        salted = None
        while True:
            kind, body = self._message()
            if kind == b"E":
                raise self._error(body)
            if kind != b"R":
                continue
            code = struct.unpack("!i", body[:4])[0]
            if code == 0:
                break
            if code == 10:
                if b"SCRAM-SHA-256\0" not in body[4:]:
                    raise DatabaseError("the server offers no SCRAM-SHA-256")
                first = ("n,," + client_first_bare).encode()
                self._send(b"p", b"SCRAM-SHA-256\0" + struct.pack("!i", len(first)) + first)
            elif code == 11:
                server_first = body[4:].decode()
                fields = dict(item.split("=", 1) for item in server_first.split(","))
                if not fields["r"].startswith(nonce):
                    raise DatabaseError("the server's SCRAM nonce does not extend ours")
                salted = hashlib.pbkdf2_hmac("sha256", self.password.encode(), base64.b64decode(fields["s"]), int(fields["i"]))
                client_key = hmac.new(salted, b"Client Key", "sha256").digest()
                stored_key = hashlib.sha256(client_key).digest()
                final_bare = "c=biws,r=" + fields["r"]
                self.auth_message = ",".join([client_first_bare, server_first, final_bare]).encode()
                signature = hmac.new(stored_key, self.auth_message, "sha256").digest()
                proof = bytes(a ^ b for a, b in zip(client_key, signature))
                self._send(b"p", (final_bare + ",p=" + base64.b64encode(proof).decode()).encode())
            elif code == 12:
                server_key = hmac.new(salted, b"Server Key", "sha256").digest()
                expected = base64.b64encode(hmac.new(server_key, self.auth_message, "sha256").digest()).decode()
                if body[4:].decode() != "v=" + expected:
                    raise DatabaseError("the server's SCRAM signature is wrong")
            else:
                raise DatabaseError("authentication method %d is not SCRAM-SHA-256" % code)
        while True:
            kind, body = self._message()
            if kind == b"E":
                raise self._error(body)
            if kind == b"Z":
                return

    def query(self, sql):
        """The rows of the last statement, as text (None for NULL)."""
        self._send(b"Q", sql.encode() + b"\0")
        rows, error = [], None
        while True:
            kind, body = self._message()
            if kind == b"T":
                rows = []
            elif kind == b"D":
                count = struct.unpack("!h", body[:2])[0]
                offset, row = 2, []
                for _ in range(count):
                    length = struct.unpack("!i", body[offset:offset + 4])[0]
                    offset += 4
                    if length < 0:
                        row.append(None)
                    else:
                        row.append(body[offset:offset + length].decode())
                        offset += length
                rows.append(row)
            elif kind == b"E":
                error = self._error(body)
            elif kind == b"Z":
                if error:
                    raise error
                return rows

    def close(self):
        try:
            self._send(b"X", b"")
        finally:
            self.sock.close()


def database_uris():
    """Each `<NAME>_URI` whose value is a PostgreSQL URI, by NAME."""
    return {
        name[: -len("_URI")]: value
        for name, value in sorted(os.environ.items())
        if name.endswith("_URI") and value.startswith(("postgresql://", "postgres://"))
    }


def write_rows():
    results, failed = {}, False
    writer = os.environ.get("HOSTNAME", socket.gethostname())
    for name, uri in database_uris().items():
        try:
            connection = PostgresConnection(uri)
            try:
                connection.query("CREATE TABLE IF NOT EXISTS %s (id bigserial PRIMARY KEY, at timestamptz NOT NULL, writer text NOT NULL)" % TABLE)
                row = connection.query("INSERT INTO %s (at, writer) VALUES (clock_timestamp(), '%s') RETURNING id, at" % (TABLE, writer.replace("'", "''")))[0]
                results[name] = {"id": int(row[0]), "at": row[1]}
            finally:
                connection.close()
        except (OSError, DatabaseError, ssl.SSLError) as error:
            failed = True
            results[name] = {"error": str(error)}
    return (502 if failed or not results else 200), results


def call_services():
    results, failed = {}, False
    targets = [target.strip() for target in os.environ.get("MCLOUD_CALLS", "").split(",") if target.strip()]
    for target in targets:
        try:
            with urllib.request.urlopen("http://%s/healthz" % target, timeout=5) as answer:
                results[target] = answer.status
        except urllib.error.HTTPError as error:
            results[target] = error.code
        except (OSError, urllib.error.URLError) as error:
            results[target] = str(getattr(error, "reason", error))
        failed = failed or results[target] != 200
    return (502 if failed else 200), results


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        path = urllib.parse.urlsplit(self.path).path
        if path == "/healthz":
            self._answer(200, "ok\n", "text/plain")
        elif path == "/write":
            status, results = write_rows()
            self._answer(status, json.dumps(results, sort_keys=True) + "\n", "application/json")
        elif path == "/call":
            status, results = call_services()
            self._answer(status, json.dumps(results, sort_keys=True) + "\n", "application/json")
        else:
            self._answer(404, "not found\n", "text/plain")

    def _answer(self, status, text, content_type):
        data = text.encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format, *args):
        sys.stderr.write("%s %s\n" % (self.address_string(), format % args))


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


if __name__ == "__main__":
    # A pod's process ends on SIGTERM; one started by a runner that blocks it would not, so it is unblocked here.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    server = Server(("", int(os.environ.get("PORT", "8080"))), Handler)
    # With PORT=0 the kernel picks a free port: the log says which.
    sys.stderr.write("mcloud-testapp: listening on port %d\n" % server.server_address[1])
    sys.stderr.flush()
    server.serve_forever()
