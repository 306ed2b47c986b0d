"""The test beds as the chaos harness (chaos.py) sees them: their env files, the fault proxy in front of each, the
retail-bank workspace pointed at them, the runs of the mcloud binary, and what each cloud holds of mcloud's, read
straight from its API by mcloud's ownership tags. Stdlib only; everything on 127.0.0.1."""
import base64
import json
import os
import re
import shutil
import signal
import ssl
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ElementTree

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TESTBED = os.path.join(ROOT, "scripts", "testbed")


def read_env(path):
    """A bed's env file: KEY=value lines."""
    values = {}
    with open(path) as handle:
        for line in handle:
            if "=" in line:
                key, value = line.rstrip("\n").split("=", 1)
                values[key] = value
    return values


def bed_dir(variable, default):
    return os.environ.get(variable, default)


class Beds:
    """The env files of the running beds (scripts/chaos.sh starts them) and the secrets they hold."""

    def __init__(self):
        self.kube_dir = bed_dir("MCLOUD_TESTBED_DIR", "/tmp/mcloud-testbed/kubernetes")
        self.kube = read_env(os.path.join(self.kube_dir, "env"))
        self.openstack = read_env(os.path.join(bed_dir("MCLOUD_OPENSTACK_TESTBED_DIR", "/tmp/mcloud-testbed/openstack"), "env"))
        self.moto = read_env(os.path.join(bed_dir("MCLOUD_TESTBED_MOTO_DIR", "/tmp/mcloud-testbed/moto"), "env"))
        self.postgres = read_env(os.path.join(bed_dir("MCLOUD_POSTGRES_TESTBED_DIR", "/tmp/mcloud-testbed/postgres"), "env"))
        self.clouds_yaml = self.openstack["MCLOUD_TEST_OS_CLIENT_CONFIG_FILE"]
        self.os_cloud = self.openstack["MCLOUD_TEST_OS_CLOUD"]
        self.token = self.kube["MCLOUD_TEST_KUBE_ADMIN_TOKEN"]
        self.kube_ca = self.kube["MCLOUD_TEST_KUBE_CA_FILE"]
        self.clusters = {}

    def start_clusters(self, names):
        """One API server per cloud (kubernetes.sh clusters): name -> URL."""
        subprocess.run([os.path.join(TESTBED, "kubernetes.sh"), "clusters"] + sorted(names), check=True, stdout=subprocess.DEVNULL)
        env = read_env(os.path.join(self.kube_dir, "clusters", "env"))
        self.clusters = {name: env["MCLOUD_TEST_KUBE_CLUSTER_" + name.upper().replace("-", "_")] for name in names}
        for url in self.clusters.values():
            self.install_service_export(url)
        return self.clusters

    def install_service_export(self, url):
        """The Multi-Cluster Services ServiceExport CRD, which a cluster set's implementation installs and the
        retail bank's fx-rates is exported with (docs/connectivity.md, Names); an existing one is left as it is."""
        crd = {
            "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "serviceexports.multicluster.x-k8s.io"},
            "spec": {
                "group": "multicluster.x-k8s.io", "scope": "Namespaced",
                "names": {"plural": "serviceexports", "singular": "serviceexport", "kind": "ServiceExport", "listKind": "ServiceExportList"},
                "versions": [{"name": "v1alpha1", "served": True, "storage": True,
                              "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}}],
            },
        }
        context = ssl.create_default_context(cafile=self.kube_ca)
        headers = {"Authorization": "Bearer " + self.token, "Content-Type": "application/json"}
        status, _, body = http("POST", url.rstrip("/") + "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
                               json.dumps(crd).encode(), headers, context)
        if status not in (201, 409):
            raise RuntimeError("installing the ServiceExport CRD on %s: %d %s" % (url, status, body[:200]))

    def openstack_auth(self):
        """The project's password credentials from the bed's clouds.yaml (a file the bed script writes plainly)."""
        auth, cloud, section = {}, None, None
        with open(self.clouds_yaml) as handle:
            for line in handle:
                indent = len(line) - len(line.lstrip(" "))
                text = line.strip()
                if indent == 2 and text.endswith(":"):
                    cloud = text[:-1]
                elif indent == 4 and text.endswith(":"):
                    section = text[:-1]
                elif cloud == self.os_cloud and section == "auth" and indent == 6 and ": " in text:
                    key, value = text.split(": ", 1)
                    auth[key] = value.strip('"')
        return auth

    def secrets(self):
        """Every secret value the beds hold, by name: what no output, log, plan or state may contain."""
        found = {
            "kubernetes admin token": self.token,
            "kubernetes viewer token": self.kube.get("MCLOUD_TEST_KUBE_VIEWER_TOKEN", ""),
            "AWS secret access key": self.moto["MCLOUD_TEST_MOTO_SECRET_ACCESS_KEY"],
            "PostgreSQL password": urllib.parse.urlsplit(self.postgres["MCLOUD_TEST_POSTGRES_URL"]).password or "",
        }
        with open(self.clouds_yaml) as handle:
            for number, line in enumerate(handle):
                match = re.match(r"\s*(password|application_credential_secret):\s*(\S+)", line)
                if match:
                    found["OpenStack %s (clouds.yaml line %d)" % (match.group(1), number + 1)] = match.group(2).strip('"')
        with open(os.path.join(os.path.dirname(self.kube_ca), "admin.key")) as handle:
            key = [line.strip() for line in handle if line.strip() and not line.startswith("-----")]
        if key:
            found["kubernetes admin client key"] = max(key, key=len)
        return {name: value for name, value in found.items() if len(value) >= 8}


def http(method, url, body=None, headers=None, context=None, timeout=60):
    """One request; (status, headers, body bytes). Errors with a status are answers too."""
    request = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=timeout, context=context) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


class Script:
    """A Python helper that prints "PORT n" lines once listening, killed at the end."""

    def __init__(self, script, arguments, log, ports=1):
        self.log = open(log, "ab")
        self.process = subprocess.Popen(["python3", os.path.join(TESTBED, script)] + arguments, stdout=subprocess.PIPE, stderr=self.log)
        self.ports = []
        for _ in range(ports):
            line = self.process.stdout.readline().decode().strip()
            if not line.startswith("PORT "):
                raise RuntimeError("%s did not start: %r (log %s)" % (script, line, log))
            self.ports.append(int(line.split()[1]))
        self.port = self.ports[0]

    def stop(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


class Proxy(Script):
    """scripts/testbed/fault_proxy.py in front of one provider's beds."""

    def __init__(self, provider, upstreams, log, tls=None, upstream_ca=None, seed=0, remember=None):
        arguments = []
        for upstream in upstreams:
            arguments += ["--upstream", upstream]
        if tls:
            arguments += ["--tls", tls[0], tls[1]]
        if upstream_ca:
            arguments += ["--upstream-ca", upstream_ca]
        if remember:
            arguments += ["--remember-header", remember]
        super().__init__("fault_proxy.py", arguments + ["--seed", str(seed)], log, ports=len(upstreams))
        self.provider = provider
        self.scheme = "https" if tls else "http"
        self.context = ssl.create_default_context(cafile=tls[2]) if tls else None
        self.upstreams = upstreams

    def origin(self, index=0):
        return "%s://127.0.0.1:%d" % (self.scheme, self.ports[index])

    def control(self, method, rules=None):
        body = json.dumps(rules).encode() if rules is not None else None
        status, _, data = http(method, self.origin() + "/__fault", body, {"Content-Type": "application/json"}, self.context)
        return json.loads(data) if status == 200 else None

    def set(self, rules):
        self.control("DELETE")
        self.control("POST", rules)

    def clear(self):
        """Removes every rule; returns the injections made since the last clear."""
        seen = self.control("GET")
        self.control("DELETE")
        return seen["injections"], seen.get("remembered", [])


def make_tls(folder):
    """A CA and a certificate for 127.0.0.1, for the proxy in front of the clusters: (cert, key, ca)."""
    os.makedirs(folder, exist_ok=True)

    def openssl(*arguments):
        subprocess.run(["openssl"] + list(arguments), cwd=folder, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "7", "-subj", "/CN=mcloud chaos CA")
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "proxy.key", "-out", "proxy.csr", "-subj", "/CN=127.0.0.1")
    with open(os.path.join(folder, "proxy.ext"), "w") as handle:
        handle.write("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    openssl("x509", "-req", "-in", "proxy.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", "proxy.pem", "-days", "7", "-extfile", "proxy.ext")
    return tuple(os.path.join(folder, name) for name in ("proxy.pem", "proxy.key", "ca.pem"))


def keystone_catalog(auth):
    """A token and the service catalog for the bed's project, straight from Keystone."""
    body = {"auth": {
        "identity": {"methods": ["password"], "password": {"user": {
            "name": auth["username"], "domain": {"name": auth.get("user_domain_name", "Default")}, "password": auth["password"]}}},
        "scope": {"project": {"name": auth["project_name"], "domain": {"name": auth.get("project_domain_name", "Default")}}},
    }}
    url = auth["auth_url"].rstrip("/")
    url = url if url.endswith("/v3") else url + "/v3"
    status, headers, data = http("POST", url + "/auth/tokens", json.dumps(body).encode(), {"Content-Type": "application/json"})
    if status != 201:
        raise RuntimeError("Keystone refused the bed's credentials: %d" % status)
    token = {k.lower(): v for k, v in headers.items()}["x-subject-token"]
    endpoints = {}
    for service in json.loads(data)["token"]["catalog"]:
        for endpoint in service["endpoints"]:
            if endpoint["interface"] == "public":
                endpoints[service["type"]] = endpoint["url"].rstrip("/")
    return token, endpoints


def origin(url):
    parts = urllib.parse.urlsplit(url)
    return "%s://%s" % (parts.scheme, parts.netloc)


class Workspace:
    """The retail-bank example under a name of its own, with the beds' catalog (beds-catalog.yaml over Providers/)
    and the files its credentials come from, in one folder that also keeps every run's output."""

    def __init__(self, folder, application):
        self.folder = folder
        self.application = application
        for sub in ("app", "providers", "logs", "plans", "home", "dumps"):
            os.makedirs(os.path.join(folder, sub), exist_ok=True)
        source = os.path.join(ROOT, "Manifests", "retail-bank")
        for name in sorted(os.listdir(source)):
            if name.endswith(".yaml"):
                with open(os.path.join(source, name)) as handle:
                    text = handle.read().replace("name: retail-bank\n", "name: %s\n" % application)
                with open(os.path.join(folder, "app", name), "w") as handle:
                    handle.write(text)
        # The operator's age identity, where mcloud looks without variables (docs/connectivity.md, "Secrets"): a
        # database VM's TLS and passwords are derived from it, and the leak scan looks for it in every output.
        self.age_key = os.path.join(folder, "home", ".config", "mcloud", "age.key")
        os.makedirs(os.path.dirname(self.age_key), mode=0o700, exist_ok=True)
        subprocess.run(["age-keygen", "-o", self.age_key], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.kubeconfig = os.path.join(folder, "kubeconfig")
        self.clouds_yaml = os.path.join(folder, "clouds.yaml")
        self.aws_config = os.path.join(folder, "aws-config")

    def age_identity(self):
        """The identity's secret line (AGE-SECRET-KEY-1...), which no output of mcloud may contain."""
        with open(self.age_key) as handle:
            return next(line.strip() for line in handle if line.startswith("AGE-SECRET-KEY-"))

    def write_catalog(self, values):
        """Providers/ with every cloud's endpoints replaced by those of beds-catalog.yaml, ${NAME} filled in."""
        overlay, cloud = {}, None
        with open(os.path.join(TESTBED, "beds-catalog.yaml")) as handle:
            for line in handle:
                if line.startswith("#") or not line.strip():
                    continue
                if not line.startswith(" "):
                    cloud = line.strip().rstrip(":")
                    overlay[cloud] = []
                else:
                    overlay[cloud].append("  " + re.sub(r"\$\{(\w+)\}", lambda m: values[m.group(1)], line.rstrip("\n")))
        source = os.path.join(ROOT, "Providers")
        for name in sorted(os.listdir(source)):
            if not name.endswith(".yaml"):
                continue
            lines, out, cloud, skipping = open(os.path.join(source, name)).read().split("\n"), [], None, False
            for line in lines:
                match = re.match(r"metadata: \{ name: ([\w-]+) \}", line)
                if match:
                    cloud = match.group(1)
                if skipping and line.startswith("    "):
                    continue
                skipping = False
                out.append(line)
                if line == "  endpoints:" and cloud in overlay:
                    out += overlay[cloud]
                    skipping = True
            with open(os.path.join(self.folder, "providers", name), "w") as handle:
                handle.write("\n".join(out))

    def write_kubeconfig(self, servers, token, ca_file):
        """A context per cloud, named after it, each through its port of the cluster proxy."""
        with open(ca_file, "rb") as handle:
            authority = base64.b64encode(handle.read()).decode()
        lines = ["apiVersion: v1", "kind: Config", "clusters:"]
        for cloud, server in sorted(servers.items()):
            lines += ["- name: %s" % cloud, "  cluster:", "    server: %s" % server, "    certificate-authority-data: %s" % authority]
        lines += ["users:", "- name: admin", "  user:", "    token: %s" % token, "contexts:"]
        for cloud in sorted(servers):
            lines += ["- name: %s" % cloud, "  context:", "    cluster: %s" % cloud, "    user: admin"]
        with open(self.kubeconfig, "w") as handle:
            handle.write("\n".join(lines) + "\n")
        os.chmod(self.kubeconfig, 0o600)

    def write_clouds_yaml(self, source, keystone, proxy_origin):
        with open(source) as handle:
            text = handle.read().replace(keystone, proxy_origin)
        with open(self.clouds_yaml, "w") as handle:
            handle.write(text)
        os.chmod(self.clouds_yaml, 0o600)

    def write_aws_config(self, key_id, secret, endpoint, backup):
        """The deploying profile `beds` and the backup identity `beds-backup` the catalog names for the VMs."""
        with open(self.aws_config, "w") as handle:
            handle.write("[profile beds]\naws_access_key_id = %s\naws_secret_access_key = %s\nendpoint_url = %s\nregion = us-east-1\n" % (key_id, secret, endpoint))
            handle.write("[profile beds-backup]\naws_access_key_id = %s\naws_secret_access_key = %s\nregion = us-east-1\n" % backup)
        os.chmod(self.aws_config, 0o600)

    def arguments(self, state):
        return ["-f", os.path.join(self.folder, "app"), "--providers", os.path.join(self.folder, "providers"), "--state", state]


class Record:
    """One finished run of mcloud."""

    def __init__(self, number, arguments, code, seconds, out, err, killed=False, hung=False):
        self.number, self.arguments, self.code, self.seconds = number, arguments, code, seconds
        self.out, self.err, self.killed, self.hung = out, err, killed, hung

    def stdout(self):
        with open(self.out, errors="replace") as handle:
            return handle.read()

    def stderr(self):
        with open(self.err, errors="replace") as handle:
            return handle.read()

    @property
    def signal(self):
        return -self.code if self.code < 0 else None

    def __repr__(self):
        return "run %d (%s): exit %s after %.1f s" % (self.number, " ".join(self.arguments[:1]), self.code, self.seconds)


class Running:
    """An mcloud process still going."""

    def __init__(self, runs, number, arguments, process, out, err):
        self.runs, self.number, self.arguments, self.process, self.out, self.err = runs, number, arguments, process, out, err
        self.started = time.time()

    def output(self):
        with open(self.out, errors="replace") as handle:
            return handle.read()

    def wait(self, limit, killed=False):
        hung = False
        if self.runs.deadline:
            limit = min(limit, self.runs.deadline - self.started)
        try:
            self.process.wait(timeout=max(0.1, limit - (time.time() - self.started)))
        except subprocess.TimeoutExpired:
            hung = True
            self.process.kill()
            self.process.wait()
        record = Record(self.number, self.arguments, self.process.returncode, time.time() - self.started, self.out, self.err, killed, hung)
        self.runs.records.append(record)
        return record

    def kill(self):
        self.process.send_signal(signal.SIGKILL)
        return self.wait(60, killed=True)


class Runs:
    """Runs the mcloud binary with the workspace's environment; keeps every run's output for the counts and the scan."""

    def __init__(self, binary, workspace, environment, deadline=None):
        self.binary = binary
        self.deadline = deadline  # time.time() after which no run starts and a running one is killed
        self.workspace = workspace
        self.environment = environment
        self.records = []
        self.count = 0

    def start(self, arguments, extra=None):
        if self.deadline and time.time() > self.deadline:
            raise TimeoutError("the harness's time limit (--minutes) is over")
        self.count += 1
        name = "%04d-%s" % (self.count, "-".join(a for a in arguments[:2] if not a.startswith("-")))
        out = os.path.join(self.workspace.folder, "logs", name + ".out")
        err = os.path.join(self.workspace.folder, "logs", name + ".err")
        environment = dict(self.environment, **(extra or {}))
        process = subprocess.Popen(
            [self.binary] + arguments, stdout=open(out, "wb"), stderr=open(err, "wb"), stdin=subprocess.DEVNULL, env=environment,
            cwd=self.workspace.folder,
        )
        return Running(self, self.count, arguments, process, out, err)

    def run(self, arguments, limit, extra=None):
        return self.start(arguments, extra).wait(limit)


def fnv1a64(text):
    value = 0xCBF29CE484222325
    for byte in text.encode():
        value = ((value ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return value


class Postgres:
    """psql on the bed, for what only the server can do: end a session, read the history."""

    def __init__(self, url):
        self.url = url

    def query(self, sql):
        result = subprocess.run(["psql", self.url, "-At", "-F", "\t", "-c", sql], capture_output=True, text=True, timeout=60)
        if result.returncode != 0:
            raise RuntimeError("psql: %s" % result.stderr.strip().split("\n")[-1])
        return [line.split("\t") for line in result.stdout.split("\n") if line]

    def lock_holder_backend(self, workspace):
        """The server pid of the session holding the workspace's advisory lock (key FNV-1a-64 of mcloud-state:NAME)."""
        key = fnv1a64("mcloud-state:" + workspace)
        rows = self.query("select pid from pg_locks where locktype = 'advisory' and granted and classid = %d and objid = %d and objsubid = 1"
                          % (key >> 32, key & 0xFFFFFFFF))
        return int(rows[0][0]) if rows else None


def kube_get(server, path, token, ca_file):
    status, _, data = http("GET", server + path, headers={"Authorization": "Bearer " + token, "Accept": "application/json"},
                           context=ssl.create_default_context(cafile=ca_file))
    return status, (json.loads(data) if data[:1] == b"{" else None)


class Inventory:
    """What every cloud holds of the application, read by mcloud's ownership marks straight from the beds (not
    through the proxies, not with mcloud's clients): a list of (address, provider ID, being deleted)."""

    # Versions the 1.20 clusters serve instead of the GA ones (as mcloud's client falls back).
    OLDER = {"autoscaling/v2": "autoscaling/v2beta2", "policy/v1": "policy/v1beta1"}

    def __init__(self, beds, application, cdn_url, kinds):
        self.beds, self.application, self.cdn_url = beds, application, cdn_url
        self.kinds = kinds  # (apiVersion, kind) pairs of the application's Kubernetes objects
        self.plurals = {}

    def objects(self):
        found = []
        found += self.kubernetes()
        found += self.openstack()
        found += self.s3()
        found += self.ec2_and_rds()
        found += self.cdn()
        return found

    def plural(self, server, api_version, kind):
        key = (server, api_version, kind)
        if key not in self.plurals:
            path = "/apis/" + api_version if "/" in api_version else "/api/" + api_version
            status, listing = kube_get(server, path, self.beds.token, self.beds.kube_ca)
            resources = listing.get("resources", []) if status == 200 and listing else []
            match = [r for r in resources if r.get("kind") == kind and "/" not in r.get("name", "")]
            self.plurals[key] = match[0]["name"] if match else None
        return self.plurals[key]

    def kubernetes(self):
        selector = urllib.parse.quote("app.kubernetes.io/managed-by=mcloud,app.kubernetes.io/part-of=%s" % self.application)
        found = []
        for cloud, server in sorted(self.beds.clusters.items()):
            for api_version, kind in sorted(self.kinds):
                served = api_version
                plural = self.plural(server, served, kind)
                if plural is None and api_version in self.OLDER:
                    served = self.OLDER[api_version]
                    plural = self.plural(server, served, kind)
                if plural is None:
                    continue
                base = "/apis/" + served if "/" in served else "/api/" + served
                status, listing = kube_get(server, "%s/%s?labelSelector=%s" % (base, plural, selector), self.beds.token, self.beds.kube_ca)
                if status != 200:
                    raise RuntimeError("listing %s on %s: %d" % (kind, cloud, status))
                for item in listing.get("items", []):
                    metadata = item["metadata"]
                    tail = metadata["name"] if kind == "Namespace" else "%s.%s" % (metadata.get("namespace", ""), metadata["name"])
                    found.append(("kubernetes.%s.%s.%s.%s" % (cloud, api_version, kind, tail), metadata["uid"], "deletionTimestamp" in metadata))
        return found

    def openstack(self):
        token, endpoints = keystone_catalog(self.beds.openstack_auth())
        headers = {"X-Auth-Token": token, "Accept": "application/json"}

        def get(service, path, extra=None):
            status, _, data = http("GET", endpoints[service] + path, headers=dict(headers, **(extra or {})))
            if status != 200:
                raise RuntimeError("OpenStack %s %s: %d" % (service, path, status))
            return json.loads(data)

        found = []
        for server in get("compute", "/servers/detail", {"OpenStack-API-Version": "compute 2.52"})["servers"]:
            metadata = server.get("metadata", {})
            if metadata.get("application") != self.application:
                continue
            deleting = server.get("status") in ("DELETED", "SOFT_DELETED") or server.get("OS-EXT-STS:task_state") == "deleting"
            for key in ("mcloud-address", "backup-address"):
                if metadata.get(key):
                    found.append((metadata[key], server["id"], deleting))
        for volume in get("volumev3", "/volumes/detail")["volumes"]:
            metadata = volume.get("metadata", {})
            if metadata.get("application") == self.application and metadata.get("mcloud-address"):
                found.append((metadata["mcloud-address"], volume["id"], volume.get("status") == "deleting"))
        for group in get("network", "/v2.0/security-groups")["security_groups"]:
            tags = group.get("tags", [])
            if any(tag.endswith("application:%s" % self.application) for tag in tags):
                for tag in tags:
                    if tag.startswith("address:"):
                        found.append((tag[len("address:"):], group["id"], False))
        prefix = "mcloud.%s." % self.application
        instances, marker = [], None
        while True:  # Trove answers 20 instances a page whatever the limit, with a next link while more follow
            page = get("database", "/instances?limit=100" + ("&marker=%s" % marker if marker else ""))
            instances += page["instances"]
            if not page["instances"] or not any(link.get("rel") == "next" for link in page.get("links", [])):
                break
            marker = page["instances"][-1]["id"]
        # Trove's pages follow an order that shifts while instances change state, so one instance can come on two
        # pages: one object, not a duplicate (a duplicate has an ID of its own).
        instances = list({instance["id"]: instance for instance in instances}.values())
        for instance in instances:
            if instance["name"].startswith(prefix):
                cloud, name = instance["name"][len(prefix):].split(".", 1)
                deleting = instance.get("status") in ("SHUTDOWN", "DELETED")
                found.append(("openstack.%s.ManagedDatabase.%s" % (cloud, name), instance["id"], deleting))
        return found

    def moto(self, method, path, body=None, region="us-east-1", service="s3"):
        # The bed's second server checks no signature; the region comes from the credential scope moto reads.
        scope = "Credential=%s/20260101/%s/%s/aws4_request" % (self.beds.moto["MCLOUD_TEST_MOTO_ACCESS_KEY_ID"], region, service)
        headers = {"Authorization": "AWS4-HMAC-SHA256 %s, SignedHeaders=host, Signature=0" % scope}
        if body is not None:
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        status, _, data = http(method, self.beds.moto["MCLOUD_TEST_MOTO_OPEN_URL"] + path, body, headers)
        return status, data

    @staticmethod
    def xml(data):
        root = ElementTree.fromstring(data)
        for element in root.iter():
            element.tag = element.tag.split("}")[-1]
        return root

    def s3(self):
        status, data = self.moto("GET", "/")
        if status != 200:
            raise RuntimeError("moto ListBuckets: %d" % status)
        found = []
        for bucket in self.xml(data).iter("Bucket"):
            name = bucket.findtext("Name")
            if not name.startswith("mcloud-"):
                continue
            status, data = self.moto("GET", "/%s?tagging" % name)
            if status != 200:
                continue
            tags = {tag.findtext("Key"): tag.findtext("Value") for tag in self.xml(data).iter("Tag")}
            address = tags.get("mcloud-address") or tags.get("mcloud.io/address")
            if tags.get("application") == self.application and address:
                found.append((address, name, False))
        return found

    def ec2_and_rds(self):
        found = []
        application = urllib.parse.quote(self.application)
        for region in ("eu-central-1", "eu-west-1", "us-east-1"):
            for action, item in (("DescribeInstances", "instancesSet/item"), ("DescribeVolumes", "volumeSet/item"), ("DescribeSecurityGroups", "securityGroupInfo/item")):
                body = "Action=%s&Version=2016-11-15&Filter.1.Name=tag:application&Filter.1.Value.1=%s" % (action, application)
                status, data = self.moto("POST", "/", body.encode(), region, "ec2")
                if status != 200:
                    raise RuntimeError("moto %s: %d" % (action, status))
                root = self.xml(data)
                for element in root.iter("item"):
                    tags = {t.findtext("key"): t.findtext("value") for t in element.findall("tagSet/item")}
                    state = element.findtext("instanceState/name") or element.findtext("status") or ""
                    ident = element.findtext("instanceId") or element.findtext("volumeId") or element.findtext("groupId")
                    if tags.get("mcloud.io/address") and ident and state != "terminated":
                        found.append((tags["mcloud.io/address"], ident, state in ("shutting-down", "deleting")))
            status, data = self.moto("POST", "/", b"Action=DescribeDBInstances&Version=2014-10-31", region, "rds")
            if status == 200:
                for instance in self.xml(data).iter("DBInstance"):
                    tags = {t.findtext("Key"): t.findtext("Value") for t in instance.iter("Tag")}
                    if tags.get("application") == self.application and tags.get("mcloud.io/address"):
                        found.append((tags["mcloud.io/address"], instance.findtext("DBInstanceIdentifier"), instance.findtext("DBInstanceStatus") == "deleting"))
        return found

    def cdn(self):
        status, _, data = http("GET", self.cdn_url + "/__control/state")
        found = []
        for resource in json.loads(data)["resources"]:
            parts = (resource.get("description") or "").split()
            if len(parts) == 4 and parts[0] == "mcloud" and parts[1] == self.application:
                found.append((parts[3], str(resource["id"]), resource.get("status") == "deleted"))
        return found


def remove_tree(path):
    shutil.rmtree(path, ignore_errors=True)
