#!/usr/bin/env python3
"""The placement problem of spec/planner.md as a mixed-integer program, solved with HiGHS (highspy).

    placement_milp.py DIR [--time-limit SECONDS] [--threads N]

DIR holds Providers/ and Manifests/ (the manifest format of spec/manifests.md, as `mcloud-bench generate` writes
them and ../shared/bench/instances hold them). Prints one line of JSON: the HiGHS version and limits, the MIP's
status, its best cost (`cost`, the application's currency a month), its dual bound (`bound`), the LP relaxation's
optimum (`lp`), and the placement in the checker's normalized form. This is a reference, not mcloud's planner: it
parses the manifests on its own (nothing shared with MCloudManifest or the Swift planner), so an agreement between
the two is evidence for both (docs/benchmarks.md, "The suite").

Variables, per cell and cloud that pass the cell's filters (capability, residency, latency): x (replicas, integer)
and y (used, binary) for a service cell; p (primary, binary) and b (backup, binary) for a database cell; k (serves,
binary) for a CDN; and, per dependsOn edge S -> D and cloud c, z = x[S,c] * p[D,c] linearized (z <= x, z <= R p),
which the traffic cost rewards: the share of S's replicas outside p(D) is 1 - z/R.
"""
import argparse
import json
import math
import os
import sys
from fractions import Fraction

import highspy
import yaml

HOURS = 730


def load(root):
    """{kind: [spec with '_name']}, every document of Providers/ and Manifests/ in path order."""
    docs = {"Cloud": [], "Application": [], "Service": [], "Database": [], "CDN": []}
    for sub in ("Providers", "Manifests"):
        for folder, names, files in sorted(os.walk(os.path.join(root, sub))):
            names.sort()
            for name in sorted(files):
                if not name.endswith((".yaml", ".yml")):
                    continue
                with open(os.path.join(folder, name), encoding="utf-8") as handle:
                    for document in yaml.load_all(handle, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
                        if not document:
                            continue
                        spec = dict(document["spec"])
                        spec["_name"] = document["metadata"]["name"]
                        docs[document["kind"]].append(spec)
    if len(docs["Application"]) != 1:
        sys.exit(f"{root}: exactly one Application is needed")
    return docs


def cpu(text):
    """`500m`, `2`, `1.5` as vCPU."""
    text = str(text)
    return Fraction(text[:-1]) / 1000 if text.endswith("m") else Fraction(text)


def memory_gib(text):
    """Kubernetes memory (`512Mi`, `4Gi`, `1G`, bytes) as GiB."""
    text = str(text)
    units = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12}
    for suffix in ("Ki", "Mi", "Gi", "Ti", "k", "M", "G", "T"):
        if text.endswith(suffix):
            return Fraction(text[: -len(suffix)]) * units[suffix] / 2**30
    return Fraction(text) / 2**30


class Problem:
    """The cells, the clouds each may use and what each choice costs, as planner.md defines them."""

    def __init__(self, docs):
        app = docs["Application"][0]
        self.clouds = sorted(docs["Cloud"], key=lambda c: c["_name"])
        rates = {key: Fraction(str(value)) for key, value in (app.get("exchangeRates") or {}).items()}
        rates[app["currency"]] = Fraction(1)
        self.audiences = app["audiences"]
        self.rules = app.get("residency") or []
        defaults = app.get("availability") or {}
        for cloud in self.clouds:
            pricing = cloud.get("pricing") or {}
            rate = rates[pricing["currency"]]
            cloud["_price"] = {key: Fraction(str(value)) * rate for key, value in pricing.items() if key != "currency"}
        workloads = {w["_name"]: w for w in docs["Service"] + docs["Database"]}
        self.services, self.databases, self.cdns, self.edges = [], [], [], []

        def cells(workload):
            if workload.get("scope") == "perAudience":
                return [(f"{workload['_name']}@{a['name']}", [a["name"]]) for a in self.audiences]
            return [(workload["_name"], [a["name"] for a in self.audiences])]

        for service in docs["Service"]:
            availability = dict(defaults)
            availability.update(service.get("availability") or {})
            resources = service.get("resources") or {}
            for name, serves in cells(service):
                replicas = int(service["replicas"])
                share = Fraction(str(availability.get("maxShare", 1)))
                cell = {
                    "name": name, "serves": serves, "replicas": replicas, "cpu": cpu(resources.get("cpu", 0)),
                    "memory": memory_gib(resources.get("memory", 0)), "data": service.get("data") or [],
                    "public": bool((service.get("expose") or {}).get("public")),
                    "minClouds": int(availability.get("minClouds", 1)), "cap": math.floor(share * replicas),
                }
                cell["clouds"] = [c for c in self.clouds if self.service_fits(cell, c)]
                self.services.append(cell)
        for database in docs["Database"]:
            size = database.get("size") or {}
            dr = (database.get("backup") or {}).get("disasterRecovery")
            for name, serves in cells(database):
                cell = {
                    "name": name, "serves": serves, "engine": database["engine"], "version": str(database.get("version", "")),
                    "hosting": database.get("hosting", "any"), "copies": 1 + int(database.get("standbys", 0)),
                    "vcpu": Fraction(str(size.get("vcpu", 0))), "memory": Fraction(str(size.get("memoryGiB", 0))),
                    "storage": Fraction(str(size.get("storageGiB", 0))), "data": database.get("data") or [], "dr": dr,
                }
                cell["clouds"] = [c for c in self.clouds if self.primary_fits(cell, c)]
                cell["backups"] = [c for c in self.clouds if dr is not None and self.backup_fits(cell, c)]
                self.databases.append(cell)
        by_name = {cell["name"]: cell for cell in self.services + self.databases}
        for service in docs["Service"]:
            for dependency in service.get("dependsOn") or []:
                target = workloads.get(dependency["name"])
                if target is None or target not in docs["Database"]:
                    continue  # a dependency on a service costs nothing
                traffic = Fraction(str(dependency.get("trafficGiBMonth", 0)))
                for name, serves in cells(service):
                    if target.get("scope") != "perAudience":
                        targets = [target["_name"]]
                    elif service.get("scope") == "perAudience":
                        targets = [f"{target['_name']}@{serves[0]}"]
                    else:
                        targets = [f"{target['_name']}@{a['name']}" for a in self.audiences]
                    for database in targets:
                        self.edges.append((by_name[name], by_name[database], traffic))
        for cdn in docs["CDN"]:
            wanted = cdn.get("audiences") or [a["name"] for a in self.audiences]
            jurisdictions = {a["name"]: a["jurisdiction"] for a in self.audiences}
            clouds = [c for c in self.clouds if self.cdn_fits(c, [jurisdictions[a] for a in wanted]) and "cdnGiB" in c["_price"]]
            self.cdns.append({"name": cdn["_name"], "traffic": Fraction(str(cdn.get("trafficGiBMonth", 0))), "clouds": clouds})

    def resident(self, cell, cloud):
        tags = set(cloud.get("jurisdiction") or [])
        for rule in self.rules:
            if rule["data"] in cell["data"] and rule["audience"] in cell["serves"] and not tags & set(rule["allowed"]):
                return False
        return True

    def service_fits(self, cell, cloud):
        if not (cloud.get("offers") or {}).get("kubernetes") or not self.resident(cell, cloud):
            return False
        if cell["public"]:
            latency = cloud.get("latencyMs") or {}
            for audience in self.audiences:
                if audience["name"] in cell["serves"] and "latencyMs" in audience:
                    if audience["name"] not in latency or latency[audience["name"]] > audience["latencyMs"]:
                        return False
        return True

    def primary_fits(self, cell, cloud):
        offers = cloud.get("offers") or {}
        dbaas = offers.get("dbaas") or []
        managed = cell["engine"] in dbaas
        if isinstance(dbaas, dict) and cell["engine"] in dbaas and dbaas[cell["engine"]]:
            managed = any(cell["version"] == v or str(v).startswith(cell["version"] + ".") for v in dbaas[cell["engine"]])
        vm = bool(offers.get("vm"))
        capable = {"vm": vm, "managed": managed}.get(cell["hosting"], vm or managed)
        return capable and self.resident(cell, cloud)

    def backup_fits(self, cell, cloud):
        return bool((cloud.get("offers") or {}).get("objectStorage")) and self.resident(cell, cloud)

    @staticmethod
    def cdn_fits(cloud, jurisdictions):
        pops = set(((cloud.get("offers") or {}).get("cdn") or {}).get("pops") or [])
        return all(j in pops for j in jurisdictions)


def solve(problem, time_limit, threads, relax=False):
    """The MIP (or its LP relaxation): (status, objective, dual bound, values by variable name)."""
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("time_limit", float(time_limit))
    h.setOptionValue("threads", int(threads))
    h.setOptionValue("mip_rel_gap", 1e-6)
    h.setOptionValue("random_seed", 0)
    columns = {}

    def column(name, cost, upper, integer):
        index = h.getNumCol()
        h.addVar(0.0, float(upper))
        h.changeColCost(index, float(cost))
        if integer and not relax:
            h.changeColIntegrality(index, highspy.HighsVarType.kInteger)
        columns[name] = index
        return index

    def row(lower, upper, terms):
        terms = [(i, float(v)) for i, v in terms if v != 0]
        h.addRow(float(lower), float(upper), len(terms), [i for i, _ in terms], [v for _, v in terms])

    inf = highspy.kHighsInf
    # Every edge's traffic is paid at the database's egress price, less the share of its service's replicas beside it (z).
    egress = {}
    for _, database, traffic in problem.edges:
        for cloud in database["clouds"]:
            key = (database["name"], cloud["_name"])
            egress[key] = egress.get(key, 0) + traffic * cloud["_price"]["egressGiB"]
    used = {c["_name"]: {"vcpu": [], "memory": [], "storage": []} for c in problem.clouds}
    for cell in problem.services:
        unit = lambda c: (cell["cpu"] * c["_price"]["vcpuHour"] + cell["memory"] * c["_price"]["memoryGiBHour"]) * HOURS
        xs, ys = [], []
        for cloud in cell["clouds"]:
            x = column(f"x|{cell['name']}|{cloud['_name']}", unit(cloud), cell["replicas"], True)
            y = column(f"y|{cell['name']}|{cloud['_name']}", 0, 1, True)
            row(-inf, 0, [(x, 1), (y, -min(cell["cap"], cell["replicas"]))])
            row(0, inf, [(x, 1), (y, -1)])
            xs.append(x)
            ys.append(y)
            used[cloud["_name"]]["vcpu"].append((x, cell["cpu"]))
            used[cloud["_name"]]["memory"].append((x, cell["memory"]))
        row(cell["replicas"], cell["replicas"], [(x, 1) for x in xs])
        row(cell["minClouds"], inf, [(y, 1) for y in ys])
    for cell in problem.databases:
        ps = []
        for cloud in cell["clouds"]:
            price = cloud["_price"]
            cost = cell["copies"] * ((cell["vcpu"] * price["vcpuHour"] + cell["memory"] * price["memoryGiBHour"]) * HOURS + cell["storage"] * price["storageGiBMonth"])
            if cell["dr"] is not None:
                cost += Fraction(str(cell["dr"].get("changeGiBDay", 0))) * 30 * price["egressGiB"]
            cost += egress.get((cell["name"], cloud["_name"]), 0)
            p = column(f"p|{cell['name']}|{cloud['_name']}", cost, 1, True)
            ps.append(p)
            used[cloud["_name"]]["vcpu"].append((p, cell["copies"] * cell["vcpu"]))
            used[cloud["_name"]]["memory"].append((p, cell["copies"] * cell["memory"]))
            used[cloud["_name"]]["storage"].append((p, cell["copies"] * cell["storage"]))
        row(1, 1, [(p, 1) for p in ps])
        if cell["dr"] is None:
            continue
        bs = {}
        for cloud in cell["backups"]:
            bs[cloud["_name"]] = column(f"b|{cell['name']}|{cloud['_name']}", cell["storage"] * cloud["_price"]["objectStorageGiBMonth"], 1, True)
        row(1, 1, [(b, 1) for b in bs.values()])
        primaries = {cloud["_name"]: columns[f"p|{cell['name']}|{cloud['_name']}"] for cloud in cell["clouds"]}
        if cell["dr"].get("differentVendor"):
            for vendor in sorted({c["vendor"] for c in problem.clouds}):
                terms = [(primaries[c["_name"]], 1) for c in cell["clouds"] if c["vendor"] == vendor]
                terms += [(bs[c["_name"]], 1) for c in cell["backups"] if c["vendor"] == vendor]
                if len(terms) > 1:
                    row(-inf, 1, terms)
        else:
            for name in sorted(set(primaries) & set(bs)):
                row(-inf, 1, [(primaries[name], 1), (bs[name], 1)])
    for service, database, traffic in problem.edges:
        replicas = service["replicas"]
        for cloud in database["clouds"]:
            paid = traffic * cloud["_price"]["egressGiB"]
            p = columns[f"p|{database['name']}|{cloud['_name']}"]
            x = columns.get(f"x|{service['name']}|{cloud['_name']}")
            if x is None or paid == 0:
                continue
            z = column(f"z|{service['name']}|{database['name']}|{cloud['_name']}|{len(columns)}", -paid / replicas, replicas, False)
            row(-inf, 0, [(z, 1), (x, -1)])
            row(-inf, 0, [(z, 1), (p, -replicas)])
    for cdn in problem.cdns:
        ks = [column(f"k|{cdn['name']}|{c['_name']}", cdn["traffic"] * c["_price"]["cdnGiB"], 1, True) for c in cdn["clouds"]]
        row(1, 1, [(k, 1) for k in ks])
    for cloud in problem.clouds:
        capacity = cloud.get("capacity") or {}
        for resource, key in (("vcpu", "vcpu"), ("memory", "memoryGiB"), ("storage", "storageGiB")):
            if used[cloud["_name"]][resource] and key in capacity:
                row(-inf, Fraction(str(capacity[key])), used[cloud["_name"]][resource])
    h.run()
    status = h.modelStatusToString(h.getModelStatus())
    info = h.getInfo()
    values = h.getSolution().col_value
    named = {name: values[index] for name, index in columns.items()} if values else {}
    bound = info.objective_function_value if relax else info.mip_dual_bound
    return status, info.objective_function_value, bound, named


def placement(problem, values):
    """The checker's normalized form."""
    cells = {}
    for cell in problem.services:
        replicas = {c["_name"]: round(values[f"x|{cell['name']}|{c['_name']}"]) for c in cell["clouds"]}
        cells[cell["name"]] = {"replicas": {name: n for name, n in sorted(replicas.items()) if n > 0}}
    for cell in problem.databases:
        entry = {"primary": next(c["_name"] for c in cell["clouds"] if values[f"p|{cell['name']}|{c['_name']}"] > 0.5)}
        if cell["dr"] is not None:
            entry["backup"] = next(c["_name"] for c in cell["backups"] if values[f"b|{cell['name']}|{c['_name']}"] > 0.5)
        cells[cell["name"]] = entry
    cdn = {cdn["name"]: next(c["_name"] for c in cdn["clouds"] if values[f"k|{cdn['name']}|{c['_name']}"] > 0.5) for cdn in problem.cdns}
    return {"cells": dict(sorted(cells.items())), "cdn": cdn}


def quiet_stdout():
    """HiGHS prints its banner on stdout at its first construction: it goes to stderr, so stdout is the JSON alone."""
    sys.stdout.flush()
    saved = os.dup(1)
    os.dup2(2, 1)
    return saved


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dir")
    parser.add_argument("--time-limit", type=float, default=300)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    problem = Problem(load(args.dir))
    saved = quiet_stdout()
    version = highspy.Highs().version()
    _, lp, _, _ = solve(problem, args.time_limit, args.threads, relax=True)
    status, cost, bound, values = solve(problem, args.time_limit, args.threads)
    os.dup2(saved, 1)
    result = {
        "solver": f"HiGHS {version}", "timeLimit": args.time_limit, "threads": args.threads, "status": status,
        "cost": cost if values else None, "bound": bound, "lp": lp,
        "placement": placement(problem, values) if values and status in ("Optimal", "Time limit reached") else None,
    }
    print(json.dumps(result, sort_keys=True))


if __name__ == "__main__":
    main()
