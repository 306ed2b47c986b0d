#!/usr/bin/env python3
"""The chaos harness: the retail-bank example applied to all four test beds at once (a kube-apiserver per cloud,
Debian's OpenStack, moto with its S3 buckets, the CDN test server), each behind a fault proxy, through what
production does to an apply; it prints a table of counts and exits 1 when a count that must be 0 is not.
scripts/chaos.sh starts the beds and builds mcloud first; docs/reliability.md has the cases and a full run.

    chaos.py [--kills N] [--apply-seconds S] [--corrupt N] [--corrupt-cycles N] [--corrupt-minutes M] [--rate R]
             [--partition CLOUD] [--concurrent N] [--phases LIST] [--seed N] [--timeout S] [--stall S] [--hang S]
             [--minutes M] [--work DIR] [--mcloud PATH] [--keep] [--quick]

Phases, in order: baseline (apply, plan, destroy: the durations the kills draw from), kills (kill -9 at random
points of apply, then apply, plan, counts, destroy), corrupt (bad answers at a rate from every proxy during apply,
plan and destroy; each failed apply or destroy repaired by a clean one), partition (one cloud's cluster black-holed
mid-apply), concurrent (N applies on one postgres:// state, then its session terminated mid-apply), disk (file:// state on a
full, then read-only, tmpfs), secrets (every byte mcloud wrote, scanned for the beds' secrets).
"""
import argparse
import base64
import json
import os
import random
import re
import ssl
import subprocess
import sys
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import chaos_beds as beds_module  # noqa: E402
from chaos_beds import ROOT, Beds, Inventory, Postgres, Proxy, Runs, Script, Workspace, http, keystone_catalog, make_tls, origin  # noqa: E402

# deep-xml, same-token and new-token are the hostile XML depth and endless pagination of docs/security.md (M1, M2).
MODES = ["truncate", "stall", "retype", "drop-field", "invalid-utf8", "huge-length", "endless", "html-200", "content-type",
         "empty", "deep-nesting", "status-500", "deep-xml", "same-token", "new-token"]
# A word that names what mcloud was doing, in an error line.
OPERATION = re.compile(
    r"\b(discover|discovery|apply|get|list|delete|create|update|read|find|wait|waiting|authenticate|refresh|refreshing|poll|"
    r"purge|show|describe|tag|attach|detach|issue|upload|S3|EC2|RDS|IAM|CloudFront|token|servers?|volumes?|security groups?|"
    r"instances?|buckets?|resources?|origin groups?|rules?)\b", re.IGNORECASE)


class Failure(Exception):
    pass


class Harness:
    def __init__(self, options):
        self.options = options
        self.rng = random.Random(options.seed)
        self.started = time.time()
        self.application = "cx-" + "".join(self.rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(6))
        self.folder = options.work or "/tmp/mcloud-chaos-%s" % self.application
        self.workspace = Workspace(self.folder, self.application)
        self.beds = Beds()
        self.scripts = []
        self.results = {}
        self.remembered = set()
        self.cdn_token = "chaos-cdn-%s" % "".join(self.rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(24))
        self.limits = {"MCLOUD_HTTP_TIMEOUT": str(options.timeout), "MCLOUD_HTTP_STALL_TIMEOUT": str(options.stall), "MCLOUD_HTTP_CONNECT_TIMEOUT": "5"}
        self.durations = {}
        self.mounted = None
        self.state_size = 440000  # the retail bank's, for the disk phase when no baseline ran

    # ------------------------------------------------------------------ set-up

    def log(self, text):
        print("chaos: %s" % text, file=sys.stderr, flush=True)

    def setup(self):
        folder = self.folder
        cdn = Script("cdn_server.py", ["--token", self.cdn_token, "--deploy-reads", "1", "--delete-reads", "1"], os.path.join(folder, "cdn-server.log"))
        self.scripts.append(cdn)
        self.cdn_url = "http://127.0.0.1:%d" % cdn.port
        values = {"KUBECONFIG": self.workspace.kubeconfig, "OPENSTACK_CLOUD": self.beds.os_cloud, "AWS_PROFILE": "beds",
                  "BACKUP_PROFILE": "beds-backup", "S3_URL": "http://127.0.0.1:9", "CDN_URL": "http://127.0.0.1:9/cdn"}
        self.workspace.write_catalog(values)
        # A plan of a new application reads no cloud: it gives the placement, so the clusters to start.
        probe = subprocess.run([self.options.mcloud, "plan", "--json"] + self.workspace.arguments("file://%s/probe.json" % folder),
                               capture_output=True, text=True,
                               env={"PATH": os.environ["PATH"], "HOME": os.path.join(folder, "home"), "NO_COLOR": "1",
                                    "MCLOUD_ALLOWED_KUBECONFIGS": self.workspace.kubeconfig})
        if probe.returncode != 0:
            raise Failure("the placement plan failed: %s" % probe.stderr[-2000:])
        self.plan = json.loads(probe.stdout)
        self.changes = {change["address"]: change for change in self.plan["resource_changes"]}
        self.clusters = sorted({address.split(".")[1] for address in self.changes if address.startswith("kubernetes.")})
        self.log("application %s: %d resources; clusters %s" % (self.application, len(self.changes), ", ".join(self.clusters)))
        self.beds.start_clusters(self.clusters)
        tls = make_tls(os.path.join(folder, "tls"))
        self.proxies = {}
        self.proxies["kubernetes"] = Proxy("kubernetes", [self.beds.clusters[c] for c in self.clusters], os.path.join(folder, "proxy-kubernetes.log"),
                                           tls=tls, upstream_ca=self.beds.kube_ca, seed=self.options.seed)
        auth = self.beds.openstack_auth()
        _, endpoints = keystone_catalog(auth)
        keystone = origin(auth["auth_url"])
        upstreams = [keystone] + sorted({origin(url) for url in endpoints.values()} - {keystone})
        self.proxies["openstack"] = Proxy("openstack", upstreams, os.path.join(folder, "proxy-openstack.log"), seed=self.options.seed + 1, remember="X-Subject-Token")
        self.proxies["s3"] = Proxy("s3", [self.beds.moto["MCLOUD_TEST_MOTO_URL"]], os.path.join(folder, "proxy-s3.log"), seed=self.options.seed + 2)
        self.proxies["cdn"] = Proxy("cdn", [self.cdn_url], os.path.join(folder, "proxy-cdn.log"), seed=self.options.seed + 3)
        self.scripts += list(self.proxies.values())
        s3 = self.proxies["s3"].origin()
        values.update({"S3_URL": s3, "CDN_URL": self.proxies["cdn"].origin() + "/cdn"})
        self.workspace.write_catalog(values)
        self.workspace.write_kubeconfig({c: self.proxies["kubernetes"].origin(i) for i, c in enumerate(self.clusters)}, self.beds.token, tls[2])
        self.workspace.write_clouds_yaml(self.beds.clouds_yaml, keystone, self.proxies["openstack"].origin(0))
        key, secret = self.beds.moto["MCLOUD_TEST_MOTO_ACCESS_KEY_ID"], self.beds.moto["MCLOUD_TEST_MOTO_SECRET_ACCESS_KEY"]
        # moto's backup user where the bed made one (moto.sh), so the VMs never get the deploying keys.
        backup = (self.beds.moto.get("MCLOUD_TEST_MOTO_BACKUP_ACCESS_KEY_ID") or key, self.beds.moto.get("MCLOUD_TEST_MOTO_BACKUP_SECRET_ACCESS_KEY") or secret)
        self.workspace.write_aws_config(key, secret, s3, backup)
        environment = {
            "PATH": os.environ["PATH"], "HOME": os.path.join(folder, "home"), "NO_COLOR": "1", "OS_CLIENT_CONFIG_FILE": self.workspace.clouds_yaml,
            "AWS_CONFIG_FILE": self.workspace.aws_config, "AWS_SHARED_CREDENTIALS_FILE": os.path.join(folder, "no-credentials"),
            # Every AWS request goes to the proxy in front of moto, whatever profile or region a provider picks.
            "AWS_ACCESS_KEY_ID": key, "AWS_SECRET_ACCESS_KEY": secret, "AWS_ENDPOINT_URL": s3,
            "GCORE_API_TOKEN": self.cdn_token, "SELECTEL_CDN_TOKEN": self.cdn_token, "VK_CDN_TOKEN": self.cdn_token,
            "MCLOUD_CDN_POLL_SECONDS": "0.2", "MCLOUD_PROGRESS_INTERVAL": "5",
            # The operator's allowances for what the catalog names (docs/security.md, H3).
            "MCLOUD_ALLOWED_KUBECONFIGS": self.workspace.kubeconfig, "MCLOUD_ALLOWED_TOKEN_ENV": "GCORE_API_TOKEN,SELECTEL_CDN_TOKEN,VK_CDN_TOKEN",
        }
        environment.update(self.limits)
        self.runs = Runs(self.options.mcloud, self.workspace, environment, self.started + self.options.minutes * 60)
        kinds = set()
        for address in self.changes:
            if address.startswith("kubernetes."):
                parts = address.split(".")[2:]
                at = next(i for i, part in enumerate(parts) if part[:1].isupper())
                kinds.add((".".join(parts[:at]), parts[at]))
        self.inventory = Inventory(self.beds, self.application, self.cdn_url, kinds)

    def teardown(self):
        if self.mounted:
            subprocess.run(["umount", self.mounted], check=False)
        for script in self.scripts:
            script.stop()

    # ------------------------------------------------------------------ helpers

    def state(self, name):
        os.makedirs(os.path.join(self.folder, "states", name), exist_ok=True)
        return "file://%s/states/%s/state.json" % (self.folder, name)

    def hang_limit(self):
        apply = self.durations.get("apply", 300)
        return self.options.hang or max(300, 3 * apply + 4 * self.options.timeout)

    def mcloud(self, command, state, extra_arguments=(), environment=None, limit=None):
        arguments = [command] + self.workspace.arguments(state) + list(extra_arguments)
        if command in ("apply", "destroy"):
            arguments.append("--auto-approve")
        return self.runs.run(arguments, limit or self.hang_limit(), environment)

    def start(self, command, state, extra_arguments=(), environment=None):
        arguments = [command] + self.workspace.arguments(state) + list(extra_arguments) + ["--auto-approve"]
        return self.runs.start(arguments, environment)

    def state_loads(self, state):
        record = self.runs.run(["state", "list", "--state", state], 120)
        return record.code == 0, record

    def recorded(self, state):
        record = self.runs.run(["state", "list", "--state", state], 120)
        return set(record.stdout().split()) if record.code == 0 else set()

    def unlock_if_stale(self, state):
        """A killed apply leaves the file lock naming it; the next apply says so, and force-unlock clears it."""
        path = state[len("file://"):] + ".lock" if state.startswith("file://") else None
        if path and os.path.exists(path):
            with open(path) as handle:
                lock = json.load(handle)
            record = self.runs.run(["state", "force-unlock", lock["id"], "--state", state], 60)
            if record.code != 0:
                raise Failure("force-unlock failed: %s" % record.stderr())
            return True
        return False

    def counts(self, state):
        """Duplicates (extra live objects for one address) and orphans (live objects the state does not name)."""
        live = [item for item in self.inventory.objects() if not item[2]]
        by_address = {}
        for address, ident, _ in live:
            by_address.setdefault(address, []).append(ident)
        recorded = self.recorded(state)
        duplicates = {address: ids for address, ids in by_address.items() if len(ids) > 1}
        orphans = sorted(address for address in by_address if address not in recorded)
        return duplicates, orphans

    def leftovers(self, wait=120):
        """What is left of the application in every cloud after a destroy; things still being deleted get `wait` s."""
        deadline = time.time() + wait
        while True:
            found = self.inventory.objects()
            self.finalize_namespaces(found)
            pending = [item for item in found if item[2] and not self.terminating_namespace(item[0])]
            if not pending or time.time() > deadline:
                return sorted({address for address, _, deleting in found if not deleting or not self.terminating_namespace(address)})
            time.sleep(3)

    @staticmethod
    def terminating_namespace(address):
        return address.startswith("kubernetes.") and ".v1.Namespace." in address

    def finalize_namespaces(self, found):
        """The clusters run no namespace controller: a deleted, empty Namespace is finished as it would finish it."""
        for address, _, deleting in found:
            if deleting and self.terminating_namespace(address):
                cloud, name = address.split(".")[1], address.split(".")[-1]
                body = json.dumps({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}, "spec": {"finalizers": []}}).encode()
                http("PUT", "%s/api/v1/namespaces/%s/finalize" % (self.beds.clusters[cloud], name), body,
                     {"Authorization": "Bearer " + self.beds.token, "Content-Type": "application/json"},
                     context=ssl.create_default_context(cafile=self.beds.kube_ca))

    def error_lines(self, record):
        return [line for line in record.stderr().split("\n") if line.startswith("error: ")]

    def unnamed(self, record):
        """Error lines that name no cloud or no operation (a state or configuration error names its file instead)."""
        clouds = {address.split(".")[1] for address in self.changes}
        missing = []
        for line in self.error_lines(record):
            if "state" in line and ("/states/" in line or "postgres://" in line):
                continue
            if not any(cloud in line for cloud in clouds) or not OPERATION.search(line):
                missing.append(line[:300])
        return missing

    def crashed(self, record, allowed=(0, 1)):
        return not record.killed and not record.hung and record.code not in allowed

    def collect(self, proxy):
        injections, remembered = proxy.clear()
        self.remembered.update(remembered)
        return injections

    def clear_all(self):
        return {name: self.collect(proxy) for name, proxy in self.proxies.items()}

    # ------------------------------------------------------------------ phases

    def baseline(self):
        state = self.state("baseline")
        started = time.time()
        applied = self.mcloud("apply", state, limit=3600)
        if applied.code != 0:
            raise Failure("the baseline apply failed (exit %s): %s" % (applied.code, applied.stderr()[-3000:]))
        self.durations["apply"] = applied.seconds
        self.state_size = os.path.getsize(state[len("file://"):])  # the whole application's, for the disk phase
        plan = self.mcloud("plan", state, ["--detailed-exitcode"])
        duplicates, orphans = self.counts(state)
        destroyed = self.mcloud("destroy", state, limit=3600)
        self.durations["destroy"] = destroyed.seconds
        left = self.leftovers()
        self.results["baseline"] = {
            "apply_seconds": round(applied.seconds, 1), "plan_exit": plan.code, "destroy_seconds": round(destroyed.seconds, 1),
            "destroy_exit": destroyed.code, "duplicates": len(duplicates), "orphans": len(orphans), "leftovers": left,
            "seconds": round(time.time() - started, 1),
        }
        self.log("baseline: apply %.0f s, plan exit %d, destroy %.0f s, %d left" % (applied.seconds, plan.code, destroyed.seconds, len(left)))

    def kills(self):
        started = time.time()
        result = {"runs": 0, "killed": 0, "finished_first": 0, "converged": 0, "duplicates": 0, "orphans": 0, "unloadable": 0,
                  "stale_locks": 0, "reapply_failed": 0, "leftovers": 0, "examples": []}
        self.results["kills"] = result  # filled in as the runs go, so a run stopped by --minutes still reports them
        for number in range(self.options.kills):
            state = self.state("kill-%02d" % number)
            delay = self.rng.uniform(0.02, 0.98) * self.durations.get("apply", self.options.apply_seconds)
            run = self.start("apply", state)
            deadline = time.time() + delay
            while time.time() < deadline and run.process.poll() is None:
                time.sleep(0.05)
            if run.process.poll() is None:
                run.kill()
                result["killed"] += 1
            else:
                run.wait(60)
                result["finished_first"] += 1
            result["runs"] += 1
            loads, _ = self.state_loads(state)
            if not loads:
                result["unloadable"] += 1
                result["examples"].append("run %d: the state does not load after kill -9 at %.1f s" % (number, delay))
                continue
            result["stale_locks"] += self.unlock_if_stale(state)
            again = self.mcloud("apply", state)
            if again.code != 0:
                result["reapply_failed"] += 1
                result["examples"].append("run %d: apply after kill -9 at %.1f s exited %s: %s" % (number, delay, again.code, (self.error_lines(again) or [""])[0][:300]))
            plan = self.mcloud("plan", state, ["--detailed-exitcode"])
            result["converged"] += plan.code == 0
            duplicates, orphans = self.counts(state)
            result["duplicates"] += sum(len(ids) - 1 for ids in duplicates.values())
            result["orphans"] += len(orphans)
            for address, ids in duplicates.items():
                result["examples"].append("run %d: %s exists %d times (%s)" % (number, address, len(ids), ", ".join(ids)))
            for address in orphans[:5]:
                result["examples"].append("run %d: orphan %s" % (number, address))
            destroyed = self.mcloud("destroy", state)
            left = self.leftovers()
            result["leftovers"] += len(left)
            if destroyed.code != 0 or left:
                result["examples"].append("run %d: destroy exit %s, left %s" % (number, destroyed.code, left[:5]))
            self.log("kill %d/%d at %.1f s: re-apply %s, plan %s, %d duplicates, %d orphans, %d left"
                     % (number + 1, self.options.kills, delay, again.code, plan.code, len(duplicates), len(orphans), len(left)))
        result["seconds"] = round(time.time() - started, 1)
        self.results["kills"] = result

    def corrupt(self):
        """--corrupt-cycles cycles of: a faulty apply, a clean one (which must repair whatever the faulty one left),
        a clean plan (must find nothing to do), faulty plans on the converged state until the cycle's share of --corrupt
        answers is reached, a faulty destroy and a clean one. A failed run stops at its cloud's first bad answer, so
        the plans (a refresh of every resource) give most of the answers; their rates are drawn from --rate up to 0.9,
        so some stop at the first request and some read deep, and a provider that got fewer answers gets more."""
        started = time.time()
        budget = started + self.options.corrupt_minutes * 60
        result = {"injected": {name: 0 for name in self.proxies}, "by_mode": {}, "runs": 0, "crashes": 0, "hangs": 0, "unnamed": 0,
                  "unrepaired": 0, "unloadable": 0, "failed_runs": 0, "max_seconds": 0.0, "examples": []}
        self.results["corrupt"] = result
        weights = {name: 1.0 for name in self.proxies}
        state = self.state("corrupt")
        target = self.options.corrupt
        cycles = max(1, self.options.corrupt_cycles)

        def faulty(command, extra=(), rate=None):
            for name, proxy in self.proxies.items():
                chance = min(0.9, (rate or self.options.rate) * weights[name])
                proxy.set([{"match": "", "rate": chance, "corrupt": MODES}])
            record = self.mcloud(command, state, extra, limit=self.hang_limit())
            injections = self.clear_all()
            result["runs"] += 1
            result["max_seconds"] = max(result["max_seconds"], round(record.seconds, 1))
            for name, items in injections.items():
                result["injected"][name] += len(items)
                for item in items:
                    result["by_mode"][item["mode"]] = result["by_mode"].get(item["mode"], 0) + 1
            allowed = (0, 1, 2) if command == "plan" else (0, 1)
            if self.crashed(record, allowed) or record.signal:
                result["crashes"] += 1
                result["examples"].append("crash: %r: %s" % (record, record.stderr()[-500:]))
            if record.hung:
                result["hangs"] += 1
                result["examples"].append("hang: %r" % record)
            if record.code == 1:
                result["failed_runs"] += 1
                missing = self.unnamed(record)
                result["unnamed"] += len(missing)
                result["examples"] += ["unnamed: %s" % line for line in missing[:3]]
            loads, _ = self.state_loads(state)
            if not loads:
                result["unloadable"] += 1
                result["examples"].append("the state does not load after %r" % record)
            # A provider that got fewer answers than the mean gets a higher chance next time.
            mean = max(1.0, sum(result["injected"].values()) / len(self.proxies))
            for name in weights:
                got = result["injected"][name]
                weights[name] = min(12.0, max(0.25, weights[name] * (1.3 if got < mean * 0.7 else (0.8 if got > mean * 1.5 else 1.0))))
            return record

        def repaired(command):
            self.unlock_if_stale(state)
            record = self.mcloud(command, state)
            if record.code != 0:
                result["unrepaired"] += 1
                result["examples"].append("unrepaired: clean %s after a faulty one: exit %s: %s" % (command, record.code, (self.error_lines(record) or [""])[0][:300]))
            return record

        plans = 0
        for cycle in range(1, cycles + 1):
            faulty("apply")
            repaired("apply")
            plan = self.mcloud("plan", state, ["--detailed-exitcode"])
            if plan.code != 0:
                result["unrepaired"] += 1
                result["examples"].append("unrepaired: plan after the repairing apply exited %s" % plan.code)
            share = target * cycle // cycles
            while sum(result["injected"].values()) < share and time.time() < budget - self.durations.get("destroy", 60) * 2:
                plans += 1
                faulty("plan", ["--out", os.path.join(self.folder, "plans", "corrupt-%04d.plan" % plans)], rate=self.rng.uniform(self.options.rate, 0.9))
            faulty("destroy")
            repaired("destroy")
            left = self.leftovers()
            if left:
                result["unrepaired"] += 1
                result["examples"].append("left after the repairing destroy: %s" % left[:5])
            self.log("corrupt cycle %d/%d: %s injected, %d faulty plans, %d crashes, %d hangs, %d unnamed, %d unrepaired"
                     % (cycle, cycles, result["injected"], plans, result["crashes"], result["hangs"], result["unnamed"], result["unrepaired"]))
        result["cycles"] = cycles
        result["faulty_plans"] = plans
        result["weights"] = {name: round(weight, 2) for name, weight in weights.items()}
        result["seconds"] = round(time.time() - started, 1)
        self.results["corrupt"] = result

    def affected(self, cloud):
        """The partitioned cloud's resources and everything that depends on them, from the plan's dependencies."""
        hit = {address for address in self.changes if address.startswith("kubernetes.%s." % cloud)}
        grew = True
        while grew:
            grew = False
            for address, change in self.changes.items():
                if address not in hit and any(dependency in hit for dependency in change.get("dependencies") or []):
                    hit.add(address)
                    grew = True
        return hit

    def partition(self):
        cloud = self.options.partition
        port = self.proxies["kubernetes"].ports[self.clusters.index(cloud)]
        state = self.state("partition")
        timeout = self.options.partition_timeout
        limits = {"MCLOUD_HTTP_TIMEOUT": str(timeout), "MCLOUD_HTTP_STALL_TIMEOUT": str(max(1, timeout // 3))}
        started = time.time()
        run = self.start("apply", state, environment=limits)
        wanted = max(5, len(self.changes) // 4)
        while run.process.poll() is None and run.output().count("Creation complete") < wanted:
            time.sleep(0.2)
        self.proxies["kubernetes"].set([{"match": "", "blackhole": True, "port": port}])
        cut = time.time()
        record = run.wait(self.hang_limit())
        after = time.time() - cut
        injections = self.clear_all()
        recorded = self.recorded(state)
        hit = self.affected(cloud)
        independent = [address for address in self.changes if address not in hit]
        finished = [address for address in independent if address in recorded]
        stderr = record.stderr()
        names = [line for line in self.error_lines(record) if cloud in line]
        healed = self.mcloud("apply", state)
        plan = self.mcloud("plan", state, ["--detailed-exitcode"])
        duplicates, orphans = self.counts(state)
        destroyed = self.mcloud("destroy", state)
        left = self.leftovers()
        self.results["partition"] = {
            "cloud": cloud, "cut_after_seconds": round(cut - started, 1), "exit": record.code, "seconds_after_cut": round(after, 1),
            "limit_seconds": timeout, "error_names_cloud": bool(names), "example": (names or self.error_lines(record) or [stderr[-300:]])[0][:400],
            "independent": len(independent), "independent_finished": len(finished), "held_requests": len(injections["kubernetes"]),
            "healed_exit": healed.code, "converged": plan.code == 0, "duplicates": len(duplicates), "orphans": len(orphans),
            "destroy_exit": destroyed.code, "leftovers": len(left), "hung": record.hung,
        }
        self.log("partition of %s: exit %s %.0f s after the cut, %d/%d independent finished, healed %s, plan %s"
                 % (cloud, record.code, after, len(finished), len(independent), healed.code, plan.code))

    def concurrent(self):
        url = self.beds.postgres["MCLOUD_TEST_POSTGRES_URL"]
        workspace = "%s-pg" % self.application
        state = "%s?workspace=%s" % (url, workspace)
        database = Postgres(url)
        count = self.options.concurrent
        runs = [self.start("apply", state) for _ in range(count)]
        deadline = time.time() + 60
        while time.time() < deadline and sum(run.process.poll() is None for run in runs) > 1:
            time.sleep(0.02)
        losers = [run for run in runs if run.process.poll() is not None]
        winners = [run for run in runs if run.process.poll() is None]
        refused = []
        for run in losers:
            record = run.wait(10)
            text = record.stderr()
            refused.append({"exit": record.code, "seconds": round(record.seconds, 2), "names_holder": "is locked by `apply`" in text and "pid " in text})
        result = {"processes": count, "ran": len(winners), "refused": len([r for r in refused if r["exit"] == 1 and r["names_holder"]]),
                  "slowest_refusal_seconds": max([r["seconds"] for r in refused] or [0.0])}
        if len(winners) != 1:
            for run in winners:
                run.kill()
            result["error"] = "%d applies ran at once" % len(winners)
            self.results["concurrent"] = result
            return
        winner = winners[0]
        wanted = max(5, len(self.changes) // 3)
        while winner.process.poll() is None and winner.output().count("Creation complete") < wanted:
            time.sleep(0.2)
        backend = database.lock_holder_backend(workspace)
        terminated = bool(backend) and database.query("select pg_terminate_backend(%d)" % backend)[0][0] == "t"
        record = winner.wait(self.hang_limit())
        loads, _ = self.state_loads(state)
        message = (self.error_lines(record) or [record.stderr()[-300:]])[0][:400]
        rerun = self.mcloud("apply", state)
        broken = None
        if rerun.code != 0 and "is locked by" in rerun.stderr():
            lock_id = re.search(r"lock ID ([0-9a-f-]{36})", rerun.stderr())
            broken = self.runs.run(["state", "force-unlock", lock_id.group(1), "--state", state], 60).code if lock_id else None
            rerun = self.mcloud("apply", state)
        plan = self.mcloud("plan", state, ["--detailed-exitcode"])
        duplicates, orphans = self.counts(state)
        history = database.query("select serial from mcloud_state_history where workspace = '%s' order by replaced_at, serial" % workspace)
        current = database.query("select serial from mcloud_state where workspace = '%s'" % workspace)
        serials = [int(row[0]) for row in history] + [int(row[0]) for row in current]
        destroyed = self.mcloud("destroy", state)
        left = self.leftovers()
        with open(os.path.join(self.folder, "dumps", "postgres-state.txt"), "w") as handle:
            for row in database.query("select body from mcloud_state where workspace = '%s' union all select body from mcloud_state_history where workspace = '%s'" % (workspace, workspace)):
                handle.write(row[0] + "\n")
        result.update({
            "terminated": terminated, "terminated_exit": record.code, "terminated_message": message, "state_loads": loads,
            "lock_taken_over": broken is None and "is locked by" not in rerun.stderr(), "force_unlocked": broken == 0, "rerun_exit": rerun.code,
            "converged": plan.code == 0, "duplicates": len(duplicates), "orphans": len(orphans),
            "serials": serials, "serials_never_back": all(a < b for a, b in zip(serials, serials[1:])),
            "destroy_exit": destroyed.code, "leftovers": len(left),
        })
        self.results["concurrent"] = result
        self.log("concurrent: %d ran, %d refused (slowest %.2f s); terminated: exit %s, state loads %s, re-run %s, plan %s"
                 % (len(winners), result["refused"], result["slowest_refusal_seconds"], record.code, loads, rerun.code, plan.code))

    def disk(self):
        folder = os.path.join(self.folder, "disk")
        os.makedirs(folder, exist_ok=True)
        size = max(64, int(self.state_size * 1.6 / 1024))
        mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=%dk,mode=0700" % size, "tmpfs", folder], capture_output=True, text=True)
        if mounted.returncode != 0:
            self.results["disk"] = {"skipped": "cannot mount a tmpfs: %s" % mounted.stderr.strip()}
            return
        self.mounted = folder
        state = "file://%s/state.json" % folder
        path = os.path.join(folder, "state.json")
        result = {"tmpfs_kib": size}
        full = self.mcloud("apply", state)
        loads, _ = self.state_loads(state)
        result.update({"full_exit": full.code, "full_message": (self.error_lines(full) or [full.stderr()[-300:]])[0][:400],
                       "full_state_loads": loads, "full_recorded": len(self.recorded(state))})
        before = open(path, "rb").read() if os.path.exists(path) else b""
        subprocess.run(["mount", "-o", "remount,ro", folder], check=True)
        read_only = self.mcloud("apply", state)
        after = open(path, "rb").read() if os.path.exists(path) else b""
        loads, _ = self.state_loads(state)
        result.update({"read_only_exit": read_only.code, "read_only_message": (self.error_lines(read_only) or [read_only.stderr()[-300:]])[0][:400],
                       "read_only_state_intact": before == after, "read_only_state_loads": loads})
        subprocess.run(["mount", "-o", "remount,rw,size=256m", folder], check=True)
        self.unlock_if_stale(state)
        healed = self.mcloud("apply", state)
        plan = self.mcloud("plan", state, ["--detailed-exitcode"])
        duplicates, orphans = self.counts(state)
        destroyed = self.mcloud("destroy", state)
        left = self.leftovers()
        for name in os.listdir(folder):
            source = os.path.join(folder, name)
            if os.path.isfile(source):
                with open(source, "rb") as handle, open(os.path.join(self.folder, "dumps", "disk-" + name), "wb") as copy:
                    copy.write(handle.read())
        subprocess.run(["umount", folder], check=False)
        self.mounted = None
        self.state_size = 440000  # the retail bank's, for the disk phase when no baseline ran
        result.update({"healed_exit": healed.code, "converged": plan.code == 0, "duplicates": len(duplicates), "orphans": len(orphans),
                       "destroy_exit": destroyed.code, "leftovers": len(left)})
        self.results["disk"] = result
        self.log("disk: full exit %s, read-only exit %s (state intact %s), healed %s, plan %s"
                 % (full.code, read_only.code, result["read_only_state_intact"], healed.code, plan.code))

    def secrets(self):
        secrets = dict(self.beds.secrets())
        secrets["CDN token"] = self.cdn_token
        secrets["age identity"] = self.workspace.age_identity()
        derived = self.derived_passwords()
        secrets.update(derived)
        for index, token in enumerate(sorted(self.remembered)):
            secrets["Keystone token %d" % (index + 1)] = token
        leaks, files, size = [], 0, 0
        for sub in ("logs", "plans", "states", "dumps"):
            for directory, _, names in os.walk(os.path.join(self.folder, sub)):
                for name in names:
                    path = os.path.join(directory, name)
                    with open(path, "rb") as handle:
                        data = handle.read()
                    files += 1
                    size += len(data)
                    for label, value in secrets.items():
                        if value.encode() in data:
                            leaks.append("%s in %s" % (label, os.path.relpath(path, self.folder)))
        self.results["secrets"] = {"files": files, "bytes": size, "values": len(secrets), "derived": len(derived), "leaks": len(leaks),
                                   "examples": leaks[:10]}

    def derived_passwords(self):
        """The passwords of the connection Secrets apply writes, derived again from the workspace's age identity by the
        independent reader of the scheme (Tests/MCloudSecretsTests/Fixtures/derive_password.py) for each edge the
        planned Secrets name in their mcloud.io/connection annotation (docs/connectivity.md)."""
        edges = set()

        def walk(value):
            if isinstance(value, dict):
                if isinstance(value.get("mcloud.io/connection"), str):
                    edge = json.loads(value["mcloud.io/connection"])
                    edges.add((edge["application"], edge["cell"], edge["service"], str(edge["generation"])))
                for item in value.values():
                    walk(item)
            elif isinstance(value, list):
                for item in value:
                    walk(item)
        walk(self.plan)
        if not edges:
            raise Failure("the plan names no connection Secret: the leak scan would look for no derived password")
        derive = os.path.join(ROOT, "Tests", "MCloudSecretsTests", "Fixtures", "derive_password.py")
        derived = {}
        for application, cell, service, generation in sorted(edges):
            password = subprocess.run([sys.executable, derive, self.workspace.age_key, application, cell, service, "password", generation],
                                      check=True, capture_output=True, text=True).stdout.strip()
            derived["password of %s -> %s" % (service, cell)] = password
        return derived

    # ------------------------------------------------------------------ report

    def crashes(self):
        crashed = []
        # A set-up that failed before mcloud ran leaves no runs; its failure is the verdict.
        for record in (self.runs.records if hasattr(self, "runs") else []):
            allowed = (0, 1, 2) if record.arguments[0] == "plan" else (0, 1)
            if self.crashed(record, allowed):
                crashed.append("%r" % record)
        return crashed

    def verdicts(self):
        """Every count that must be 0 or complete, with whether it is."""
        checks = []
        r = self.results
        if "baseline" in r:
            b = r["baseline"]
            checks.append(("baseline converges and destroys cleanly", b["plan_exit"] == 0 and b["destroy_exit"] == 0 and not b["leftovers"] and b["duplicates"] == 0 and b["orphans"] == 0))
        if "kills" in r:
            k = r["kills"]
            checks += [("kill -9: every run converged", k["converged"] == k["runs"]), ("kill -9: 0 duplicates", k["duplicates"] == 0),
                       ("kill -9: 0 orphans", k["orphans"] == 0), ("kill -9: 0 unloadable states", k["unloadable"] == 0),
                       ("kill -9: 0 left after destroy", k["leftovers"] == 0)]
        if "corrupt" in r:
            c = r["corrupt"]
            checks += [("corrupt: 0 crashes", c["crashes"] == 0), ("corrupt: 0 hangs", c["hangs"] == 0), ("corrupt: every error names cloud and operation", c["unnamed"] == 0),
                       ("corrupt: every failed run repaired", c["unrepaired"] == 0), ("corrupt: 0 unloadable states", c["unloadable"] == 0),
                       ("corrupt: %d answers reached" % self.options.corrupt, sum(c["injected"].values()) >= self.options.corrupt)]
        if "partition" in r:
            p = r["partition"]
            checks += [("partition: exit 1 naming %s" % p["cloud"], p["exit"] == 1 and p["error_names_cloud"]),
                       ("partition: independent resources finished", p["independent_finished"] == p["independent"]),
                       ("partition: ended within the limits", not p["hung"]),
                       ("partition: healed apply converges", p["healed_exit"] == 0 and p["converged"] and p["duplicates"] == 0 and p["orphans"] == 0 and p["leftovers"] == 0)]
        if "concurrent" in r:
            c = r["concurrent"]
            checks += [("concurrent: exactly one ran", c["ran"] == 1), ("concurrent: the rest refused naming the holder", c["refused"] == c["processes"] - 1)]
            if "terminated" in c:
                checks += [("concurrent: terminated apply stopped, state loads", c["terminated"] and c["terminated_exit"] == 1 and c["state_loads"]),
                           ("concurrent: lock released or breakable, re-run converges", c["rerun_exit"] == 0 and c["converged"] and c["duplicates"] == 0 and c["orphans"] == 0),
                           ("concurrent: serials never go back", c["serials_never_back"]), ("concurrent: 0 left after destroy", c["leftovers"] == 0)]
        if "disk" in r and "skipped" not in r["disk"]:
            d = r["disk"]
            checks += [("disk: full tmpfs stops apply, state loads", d["full_exit"] == 1 and d["full_state_loads"]),
                       ("disk: read-only stops apply, state intact", d["read_only_exit"] == 1 and d["read_only_state_intact"] and d["read_only_state_loads"]),
                       ("disk: enlarged, one apply converges", d["healed_exit"] == 0 and d["converged"] and d["duplicates"] == 0 and d["orphans"] == 0 and d["leftovers"] == 0)]
        if "secrets" in r:
            checks.append(("secrets: 0 leaks", r["secrets"]["leaks"] == 0))
        crashed = self.crashes()
        checks.append(("0 crashes in %d runs of mcloud" % (len(self.runs.records) if hasattr(self, "runs") else 0), not crashed))
        self.results["crashes"] = crashed
        return checks

    def table(self):
        r = self.results
        lines = []

        def row(case, runs, outcome):
            lines.append("%-17s %6s  %s" % (case, runs, outcome))

        row("CASE", "RUNS", "OUTCOME")
        if "baseline" in r:
            b = r["baseline"]
            row("baseline", 3, "apply %.0f s, plan exit %d, destroy %.0f s, %d duplicates, %d orphans, %d left" % (b["apply_seconds"], b["plan_exit"], b["destroy_seconds"], b["duplicates"], b["orphans"], len(b["leftovers"])))
        if "kills" in r:
            k = r["kills"]
            row("kill -9", k["runs"], "%d/%d converged, %d duplicates, %d orphans, %d unloadable states, %d stale locks cleared, %d left after destroy (%d finished before the kill)"
                % (k["converged"], k["runs"], k["duplicates"], k["orphans"], k["unloadable"], k["stale_locks"], k["leftovers"], k["finished_first"]))
        if "corrupt" in r:
            c = r["corrupt"]
            spread = ", ".join("%s %d" % (name, count) for name, count in c["injected"].items())
            row("corrupt answers", c["runs"], "%d answers (%s): %d crashes, %d hangs, %d errors without cloud or operation, %d not repaired, %d unloadable; slowest run %.0f s"
                % (sum(c["injected"].values()), spread, c["crashes"], c["hangs"], c["unnamed"], c["unrepaired"], c["unloadable"], c["max_seconds"]))
        if "partition" in r:
            p = r["partition"]
            row("partition", 1, "%s black-holed after %.0f s: exit %s %.0f s later (limit %d s), names it: %s; %d/%d independent finished; healed: %s"
                % (p["cloud"], p["cut_after_seconds"], p["exit"], p["seconds_after_cut"], p["limit_seconds"], "yes" if p["error_names_cloud"] else "no",
                   p["independent_finished"], p["independent"], "converged" if p["converged"] else "NOT converged"))
        if "concurrent" in r:
            c = r["concurrent"]
            text = "%d ran, %d refused naming the holder (slowest %.2f s)" % (c["ran"], c["refused"], c["slowest_refusal_seconds"])
            if "terminated" in c:
                text += "; session terminated: exit %s, state loads: %s, %s, re-run %s, serials %s" % (
                    c["terminated_exit"], "yes" if c["state_loads"] else "NO", "lock taken over" if c["lock_taken_over"] else ("force-unlocked" if c["force_unlocked"] else "lock stuck"),
                    "converged" if c["converged"] else "NOT converged", "never went back" if c["serials_never_back"] else "WENT BACK")
            row("concurrent", c["processes"], text)
        if "disk" in r:
            d = r["disk"]
            if "skipped" in d:
                row("disk", 0, "skipped: %s" % d["skipped"])
            else:
                row("disk", 3, "full (%d KiB): exit %s, state loads %s; read-only: exit %s, state intact %s; enlarged: %s"
                    % (d["tmpfs_kib"], d["full_exit"], "yes" if d["full_state_loads"] else "NO", d["read_only_exit"], "yes" if d["read_only_state_intact"] else "NO",
                       "converged" if d["converged"] else "NOT converged"))
        if "secrets" in r:
            s = r["secrets"]
            row("secrets", s["files"], "%d bytes in %d files scanned for %d secret values (%d derived passwords): %d leaks" % (s["bytes"], s["files"], s["values"], s["derived"], s["leaks"]))
        return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description="mcloud's chaos harness (see docs/reliability.md)")
    parser.add_argument("--kills", type=int, default=25, help="kill -9 runs (default 25)")
    parser.add_argument("--corrupt", type=int, default=2000, help="corrupted answers to reach (default 2000)")
    parser.add_argument("--minutes", type=float, default=240, help="the whole run's time limit: past it no run starts, a running one is killed (a hang) and the harness fails (default 240; --quick 20)")
    parser.add_argument("--corrupt-minutes", type=float, default=90, help="time the corrupt phase may take at most (default 90)")
    parser.add_argument("--corrupt-cycles", type=int, default=3, help="faulty apply and destroy cycles of the corrupt phase (default 3)")
    parser.add_argument("--rate", type=float, default=0.08, help="chance that a proxy spoils an answer in a faulty apply or destroy, and the lowest in a faulty plan (default 0.08)")
    parser.add_argument("--partition", default="sel-spb", help="the cloud whose cluster is black-holed (default sel-spb)")
    parser.add_argument("--partition-timeout", type=int, default=45, help="MCLOUD_HTTP_TIMEOUT of the partitioned apply (default 45; its stall limit is a third of it)")
    parser.add_argument("--concurrent", type=int, default=8, help="applies started at once on one postgres:// state (default 8)")
    parser.add_argument("--timeout", type=int, default=90, help="MCLOUD_HTTP_TIMEOUT of every run (default 90)")
    parser.add_argument("--stall", type=int, default=20, help="MCLOUD_HTTP_STALL_TIMEOUT of every run (default 20: the beds' Trove answers a list in more than 5 s on a busy machine)")
    parser.add_argument("--hang", type=float, default=0, help="seconds after which a run counts as hung (default 3 x the baseline apply + 4 x --timeout, at least 300)")
    parser.add_argument("--phases", help="comma-separated phases to run (default all: baseline,kills,corrupt,partition,concurrent,disk,secrets)")
    parser.add_argument("--apply-seconds", type=float, default=0, help="the apply's duration the kills draw their delay from; given, no baseline runs first")
    parser.add_argument("--seed", type=int, default=int(time.time()) % 100000, help="seed of every random choice (default: the time)")
    parser.add_argument("--quick", action="store_true", help="CI's small counts: phases kills,corrupt,secrets (no baseline: --apply-seconds 80), 1 kill, 100 answers, 1 corrupt cycle")
    parser.add_argument("--work", help="folder for the run (default /tmp/mcloud-chaos-<application>)")
    parser.add_argument("--mcloud", default=os.path.join(ROOT, ".build", "debug", "mcloud"), help="the mcloud binary")
    parser.add_argument("--keep", action="store_true", help="keep the work folder (it is kept anyway when a check fails)")
    options = parser.parse_args()
    if options.quick:
        options.kills, options.corrupt, options.corrupt_cycles = min(options.kills, 1), min(options.corrupt, 100), 1
        options.phases = options.phases or "kills,corrupt,secrets"
        options.apply_seconds = options.apply_seconds or 80
        options.minutes = min(options.minutes, 20)
    options.phases = options.phases or "baseline,kills,corrupt,partition,concurrent,disk,secrets"
    phases = [phase.strip() for phase in options.phases.split(",") if phase.strip()]
    harness = Harness(options)
    started = time.time()
    failure = None
    print("chaos run %s, seed %d, application %s, work %s" % (time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), options.seed, harness.application, harness.folder), flush=True)
    try:
        harness.setup()
        if not options.apply_seconds and ("kills" in phases or "disk" in phases or "partition" in phases):
            phases = ["baseline"] + [phase for phase in phases if phase != "baseline"]
        for phase in phases:
            if phase == "secrets":
                continue
            getattr(harness, phase)()
        if "secrets" in phases:
            harness.secrets()
    except Failure as error:
        failure = str(error)
    except TimeoutError as error:
        failure = str(error)
    except KeyboardInterrupt:
        failure = "interrupted"
    finally:
        harness.teardown()
    harness.results["seconds"] = round(time.time() - started, 1)
    checks = harness.verdicts()
    print()
    print(harness.table())
    print()
    for name, ok in checks:
        print("%s %s" % ("ok  " if ok else "FAIL", name))
    if failure:
        print("FAIL %s" % failure)
    examples = [example for result in harness.results.values() if isinstance(result, dict) for example in result.get("examples", [])]
    for example in examples[:20]:
        print("  %s" % example)
    for crash in harness.results.get("crashes", [])[:10]:
        print("  crash: %s" % crash)
    print("%d runs of mcloud in %.0f s; report: %s/report.json" % (len(harness.runs.records) if hasattr(harness, "runs") else 0, harness.results["seconds"], harness.folder))
    with open(os.path.join(harness.folder, "report.json"), "w") as handle:
        json.dump({"seed": options.seed, "application": harness.application, "options": vars(options), "results": harness.results,
                   "checks": [{"check": name, "ok": ok} for name, ok in checks], "failure": failure}, handle, indent=2, default=str)
    ok = not failure and all(ok for _, ok in checks)
    if ok and not options.keep:
        beds_module.remove_tree(os.path.join(harness.folder, "logs"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
