#!/usr/bin/env python3
"""An in-memory G-Core-style CDN API (the API VK Cloud CDN also speaks) for mcloud's tests: stdlib only, 127.0.0.1.

    cdn_server.py [--port N] [--port-file FILE] [--token T] [--deploy-reads N] [--delete-reads N]
                  [--purge-reads N] [--purge-window SECONDS]

Prints "PORT <n>" once listening. Paths are matched by their tail, so any prefix works: G-Core's
https://api.gcore.com/cdn/resources is /cdn/resources here, VK's .../projects/<id>/resources is
/projects/<id>/resources. Behaviour reproduced from the G-Core API reference:

  auth        "Authorization: APIKey <T>" (G-Core), "Authorization: Bearer <T>" or "X-Auth-Token: <T>" (a Keystone
              token, VK); anything else is 401 {"detail": ...}
  origin groups  POST/GET /origin_groups (VK: /originGroups), GET/PUT/PATCH/DELETE /origin_groups/<id>: {name, sources[{source, backup,
              enabled}], use_next, proxy_next_upstream}; at least one enabled, non-backup source; deleting a group a
              resource uses is 400
  resources   POST/GET /resources, GET/PUT/PATCH/DELETE /resources/<id>: {cname (unique), originGroup (must exist),
              originProtocol HTTP|HTTPS|MATCH, name, description, secondaryHostnames, options}. After a create or a
              change, status is "processed" for --deploy-reads reads, then "active". A deleted resource reads as
              status "deleted" for --delete-reads reads, then 404
  rules       POST/GET /resources/<id>/rules, GET/PUT/PATCH/DELETE /resources/<id>/rules/<rule id>:
              {name, rule, ruleType, active, weight, options}
  purge       POST /resources/<id>/purge {"urls": [...]} (2 a window, 100 URLs at most), {"paths": [...]} (1 a
              window, 10 patterns at most) or {"paths": []} (purge all, 1 a window); the window is --purge-window
              seconds (60 on G-Core). Over the limit: 429 with Retry-After. The purge is asynchronous:
              GET /purge_statuses?cname=<cname> lists it "In progress" for --purge-reads reads, then "Successful"
  ETag        every resource answer carries an ETag; a PUT/PATCH/DELETE with an If-Match that is not the current one
              is 412 (without If-Match the last writer wins, as on G-Core)
  errors      400 {"errors": {field: [messages]}}, 401/403/404/412/429 {"detail": message}

Control endpoints for tests (no auth): POST /__control/reset, GET /__control/state (every object, the purge log and
a journal of "METHOD path" lines), POST /__control/edit {"resource": id, "patch": {...}} (a change made elsewhere,
bumping the ETag), POST /__control/config {"deploy_reads", "delete_reads", "purge_reads", "purge_window"}.
"""
import argparse
import json
import re
import sys
import threading
import time
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

lock = threading.Lock()
config = {"token": "test-token", "deploy_reads": 2, "delete_reads": 1, "purge_reads": 1, "purge_window": 60.0}


def fresh_store():
    return {"groups": {}, "resources": {}, "rules": {}, "purges": [], "journal": [], "next_id": 100, "purge_times": {}}


store = fresh_store()
HOST = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?(:[0-9]{1,5})?$")


def now():
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def new_id():
    store["next_id"] += 1
    return store["next_id"]


class Failure(Exception):
    def __init__(self, status, body, headers=()):
        super().__init__(status)
        self.status, self.body, self.headers = status, body, list(headers)


def invalid(field, message):
    return Failure(400, {"errors": {field: [message]}})


def not_found():
    return Failure(404, {"detail": "Not found."})


def check_group(body, partial=False):
    if not partial or "name" in body:
        if not isinstance(body.get("name"), str) or not body["name"]:
            raise invalid("name", "This field is required.")
    if not partial or "sources" in body:
        sources = body.get("sources")
        if not isinstance(sources, list) or not sources:
            raise invalid("sources", "This field is required.")
        for source in sources:
            if not isinstance(source, dict) or not isinstance(source.get("source"), str) or not HOST.match(source["source"]):
                raise invalid("sources", "Enter a valid domain name or IP address with an optional port.")
        if not any(s.get("enabled", True) and not s.get("backup", False) for s in sources):
            raise invalid("sources", "Origin group must contain at least one enabled origin that is not a backup.")


def group_view(group):
    used = any(r["originGroup"] == group["id"] and not r["deleted"] for r in store["resources"].values())
    return dict(group, has_related_resources=used)


def check_resource(body, partial=False, resource_id=None):
    if not partial or "cname" in body:
        cname = body.get("cname")
        if not isinstance(cname, str) or not HOST.match(cname) or ":" in cname:
            raise invalid("cname", "Enter a valid domain name.")
        for other in store["resources"].values():
            if other["cname"] == cname and other["id"] != resource_id and not other["deleted"]:
                raise invalid("cname", "CDN resource with this cname already exists.")
    if not partial or "originGroup" in body:
        if body.get("originGroup") not in store["groups"]:
            raise invalid("originGroup", "Origin group %s does not exist." % body.get("originGroup"))
    if "originProtocol" in body and body["originProtocol"] not in ("HTTP", "HTTPS", "MATCH"):
        raise invalid("originProtocol", '"%s" is not a valid choice.' % body["originProtocol"])


RESOURCE_FIELDS = ("cname", "originGroup", "originProtocol", "name", "description", "secondaryHostnames", "options",
                   "active", "sslEnabled", "sslData")


def resource_view(resource):
    """One read: a deploying resource moves one step towards active, a deleted one towards gone."""
    if resource["deleted"]:
        resource["reads_left"] -= 1
        if resource["reads_left"] < 0:
            del store["resources"][resource["id"]]
            raise not_found()
    elif resource["status"] == "processed":
        resource["reads_left"] -= 1
        if resource["reads_left"] < 0:
            resource["status"] = "active"
    view = {k: v for k, v in resource.items() if k not in ("reads_left", "version")}
    view["rules"] = [rule for rule in store["rules"].values() if rule["resource"] == resource["id"]]
    group = store["groups"].get(resource["originGroup"])
    view["originGroup_name"] = group["name"] if group else None
    return view


def etag(resource):
    return '"%s-%d"' % (resource["id"], resource["version"])


def changed(resource):
    resource["version"] += 1
    resource["updated"] = now()
    resource["status"] = "processed"
    resource["reads_left"] = config["deploy_reads"]


def live_resource(resource_id):
    resource = store["resources"].get(resource_id)
    if resource is None:
        raise not_found()
    return resource


def check_if_match(headers, resource):
    wanted = headers.get("If-Match")
    if wanted is not None and wanted != etag(resource):
        raise Failure(412, {"detail": "Precondition failed: the resource changed (ETag %s, If-Match %s)." % (etag(resource), wanted)})


def purge(resource, body):
    if "urls" in body:
        kind, items, limit, most = "purge_by_url", body["urls"], 2, 100
    elif "paths" in body:
        kind, items = ("purge_by_pattern", body["paths"]) if body["paths"] else ("purge_all", [])
        limit, most = 1, 10
    else:
        raise invalid("paths", "This field is required.")
    if not isinstance(items, list) or not all(isinstance(i, str) and i.startswith("/") for i in items):
        raise invalid("urls" if kind == "purge_by_url" else "paths", "Each item must be a path that starts with /.")
    if len(items) > most:
        raise invalid("urls" if kind == "purge_by_url" else "paths", "Ensure this field has no more than %d elements." % most)
    key = (resource["id"], kind)
    window = config["purge_window"]
    recent = [t for t in store["purge_times"].get(key, []) if time.time() - t < window]
    if len(recent) >= limit:
        wait = max(1, int(window - (time.time() - recent[0]) + 0.999))
        raise Failure(429, {"detail": "Request was throttled. Expected available in %d seconds." % wait}, [("Retry-After", str(wait))])
    store["purge_times"][key] = recent + [time.time()]
    entry = {"purge_id": new_id(), "purge_type": kind, "status": "In progress", "created": now(),
             "payload": {"urls" if kind == "purge_by_url" else "paths": items},
             "resource": {"id": resource["id"], "cname": resource["cname"]}, "reads_left": config["purge_reads"]}
    store["purges"].append(entry)
    return {k: v for k, v in entry.items() if k != "reads_left"}


def purge_statuses(query):
    cname = query.get("cname", [None])[0]
    results = []
    for entry in store["purges"]:
        if cname and entry["resource"]["cname"] != cname:
            continue
        if entry["status"] == "In progress":
            entry["reads_left"] -= 1
            if entry["reads_left"] < 0:
                entry["status"] = "Successful"
        results.append({k: v for k, v in entry.items() if k != "reads_left"})
    results.reverse()
    return {"count": len(results), "next": None, "previous": None, "results": results}


def route(method, parts, query, headers, body):
    """(status, body, headers) for an authenticated API call; parts are the path segments from the known one on."""
    if parts[0] == "origin_groups":
        if len(parts) == 1 and method == "GET":
            return 200, [group_view(g) for g in store["groups"].values()], []
        if len(parts) == 1 and method == "POST":
            check_group(body)
            group = {"id": new_id(), "name": body["name"], "sources": [
                {"source": s["source"], "backup": bool(s.get("backup", False)), "enabled": bool(s.get("enabled", True))}
                for s in body["sources"]], "use_next": bool(body.get("use_next", True)),
                "proxy_next_upstream": body.get("proxy_next_upstream", ["error", "timeout"]), "auth_type": "none", "path": ""}
            store["groups"][group["id"]] = group
            return 201, group_view(group), []
        group = store["groups"].get(int(parts[1])) if len(parts) == 2 and parts[1].isdigit() else None
        if group is None:
            raise not_found()
        if method == "GET":
            return 200, group_view(group), []
        if method in ("PUT", "PATCH"):
            check_group(body, partial=method == "PATCH")
            for field in ("name", "sources", "use_next", "proxy_next_upstream"):
                if field in body:
                    group[field] = body[field]
            return 200, group_view(group), []
        if method == "DELETE":
            if group_view(group)["has_related_resources"]:
                raise invalid("originGroup", "This origin group is used by a CDN resource and cannot be deleted.")
            del store["groups"][group["id"]]
            return 204, None, []
    if parts[0] == "purge_statuses" and method == "GET":
        return 200, purge_statuses(query), []
    if parts[0] != "resources":
        raise not_found()
    if len(parts) == 1 and method == "GET":
        views = []
        for resource in list(store["resources"].values()):
            try:
                views.append(resource_view(resource))
            except Failure:
                pass
        return 200, views, []
    if len(parts) == 1 and method == "POST":
        check_resource(body)
        resource = {"id": new_id(), "created": now(), "deleted": False, "status": "processed", "version": 0,
                    "reads_left": config["deploy_reads"], "cname": body["cname"], "originGroup": body["originGroup"],
                    "originProtocol": body.get("originProtocol", "HTTP"), "name": body.get("name"),
                    "description": body.get("description", ""), "secondaryHostnames": body.get("secondaryHostnames", []),
                    "options": body.get("options", {}), "active": body.get("active", True), "sslEnabled": False, "sslData": None}
        changed(resource)
        store["resources"][resource["id"]] = resource
        return 201, resource_view(resource), [("ETag", etag(resource))]
    if not parts[1].isdigit():
        raise not_found()
    resource = live_resource(int(parts[1]))
    if len(parts) == 2:
        if method == "GET":
            view = resource_view(resource)
            return 200, view, [("ETag", etag(resource))]
        if resource["deleted"]:
            raise not_found()
        check_if_match(headers, resource)
        if method in ("PUT", "PATCH"):
            check_resource(body, partial=method == "PATCH", resource_id=resource["id"])
            for field in RESOURCE_FIELDS:
                if field in body:
                    resource[field] = body[field]
            changed(resource)
            return 200, resource_view(resource), [("ETag", etag(resource))]
        if method == "DELETE":
            resource["deleted"] = True
            resource["status"] = "deleted"
            resource["reads_left"] = config["delete_reads"]
            for rule_id in [i for i, r in store["rules"].items() if r["resource"] == resource["id"]]:
                del store["rules"][rule_id]
            return 204, None, []
    if resource["deleted"]:
        raise not_found()
    if parts[2] == "purge" and len(parts) == 3 and method == "POST":
        return 201, purge(resource, body), []
    if parts[2] != "rules":
        raise not_found()
    if len(parts) == 3 and method == "GET":
        return 200, [r for r in store["rules"].values() if r["resource"] == resource["id"]], []
    if len(parts) == 3 and method == "POST":
        if not isinstance(body.get("rule"), str) or not body["rule"].startswith(("/", "^/")):
            raise invalid("rule", "Rule must start with / or ^/.")
        if not isinstance(body.get("name"), str) or not body["name"]:
            raise invalid("name", "This field is required.")
        rule = {"id": new_id(), "resource": resource["id"], "name": body["name"], "rule": body["rule"],
                "ruleType": body.get("ruleType", 0), "active": body.get("active", True), "weight": body.get("weight", 1),
                "options": body.get("options", {}), "deleted": False}
        store["rules"][rule["id"]] = rule
        changed(resource)
        return 201, rule, []
    rule = store["rules"].get(int(parts[3])) if parts[3].isdigit() else None
    if rule is None or rule["resource"] != resource["id"]:
        raise not_found()
    if method == "GET":
        return 200, rule, []
    if method in ("PUT", "PATCH"):
        for field in ("name", "rule", "ruleType", "active", "weight", "options"):
            if field in body:
                rule[field] = body[field]
        changed(resource)
        return 200, rule, []
    if method == "DELETE":
        del store["rules"][rule["id"]]
        changed(resource)
        return 204, None, []
    raise Failure(405, {"detail": 'Method "%s" not allowed.' % method})


def authorized(headers):
    token = config["token"]
    given = headers.get("Authorization", "")
    return given in ("APIKey " + token, "Bearer " + token) or headers.get("X-Auth-Token") == token


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, code, body, headers=()):
        data = b"" if body is None or code == 204 else json.dumps(body).encode()
        self.send_response(code)
        for name, value in headers:
            self.send_header(name, value)
        if data:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def control(self, name, body):
        global store
        if name == "reset":
            store = fresh_store()
            return 204, None
        if name == "state":
            return 200, {"origin_groups": list(store["groups"].values()), "resources": list(store["resources"].values()),
                         "rules": list(store["rules"].values()), "purges": store["purges"], "journal": store["journal"]}
        if name == "config":
            for key in ("deploy_reads", "delete_reads", "purge_reads", "purge_window"):
                if key in body:
                    config[key] = body[key]
            return 200, {k: v for k, v in config.items() if k != "token"}
        if name == "edit":
            resource = live_resource(body.get("resource"))
            resource.update(body.get("patch", {}))
            resource["version"] += 1
            resource["updated"] = now()
            return 200, {"etag": etag(resource)}
        raise not_found()

    def handle_any(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        url = urlsplit(self.path)
        segments = [s for s in url.path.split("/") if s]
        try:
            try:
                body = json.loads(raw) if raw else {}
            except ValueError:
                raise Failure(400, {"detail": "JSON parse error."})
            with lock:
                if segments[:1] == ["__control"] and len(segments) == 2:
                    status, answer = self.control(segments[1], body)
                    self.reply(status, answer)
                    return
                store["journal"].append("%s %s" % (self.command, url.path))
                if not authorized(self.headers):
                    raise Failure(401, {"detail": "Invalid token."})
                segments = ["origin_groups" if s == "originGroups" else s for s in segments]  # VK's spelling
                known = [i for i, s in enumerate(segments) if s in ("resources", "origin_groups", "purge_statuses")]
                if not known:
                    raise not_found()
                if not isinstance(body, dict):
                    raise Failure(400, {"detail": "Expected a JSON object."})
                status, answer, headers = route(self.command, segments[known[0]:], parse_qs(url.query), self.headers, body)
            self.reply(status, answer, headers)
        except Failure as failure:
            self.reply(failure.status, failure.body, failure.headers)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = handle_any


def main():
    parser = argparse.ArgumentParser(description="in-memory G-Core-style CDN API for tests")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--port-file")
    parser.add_argument("--token", default=config["token"])
    parser.add_argument("--deploy-reads", type=int, default=config["deploy_reads"])
    parser.add_argument("--delete-reads", type=int, default=config["delete_reads"])
    parser.add_argument("--purge-reads", type=int, default=config["purge_reads"])
    parser.add_argument("--purge-window", type=float, default=config["purge_window"])
    arguments = parser.parse_args()
    config.update(token=arguments.token, deploy_reads=arguments.deploy_reads, delete_reads=arguments.delete_reads,
                  purge_reads=arguments.purge_reads, purge_window=arguments.purge_window)
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
