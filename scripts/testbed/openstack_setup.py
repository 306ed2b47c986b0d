#!/usr/bin/python3
"""Registers the test bed's OpenStack objects through the real APIs; every step is idempotent.

    openstack_setup.py register  --keystone URL --dir DIR --service-password P --endpoint TYPE=URL ...
    openstack_setup.py resources --keystone URL --dir DIR --service-password P --trove-manage CMD
    openstack_setup.py sweep     --keystone URL --dir DIR --service-password P

register: projects service, mcloud, mcloud-quota; users admin (bootstrap), mcloud, the service users; the
catalog. resources: a tiny image, flavors, the Trove datastore, low quotas on mcloud-quota, an application
credential for mcloud, then DIR/clouds.yaml and DIR/env (written last: the env file means "ready"). sweep: deletes
what an earlier run left in project mcloud (a run killed before its cleanup): Trove instances, then servers, volumes
and security groups other than default. The bed keeps its databases across stop and up, and Trove lists every
instance it holds with a Nova and a Cinder lookup each, so leftovers slow every later listing.
"""
import argparse
import json
import shlex
import subprocess
import sys
import time
import urllib.error
import urllib.request

SERVICES = {
    "compute": "nova", "placement": "placement", "image": "glance", "network": "neutron",
    "block-storage": "cinder", "volumev3": "cinderv3", "database": "trove",
}
DATASTORES = [("mysql", "5.7.29"), ("postgresql", "16"), ("redis", "7.2")]
SERVICE_USERS = ["nova", "placement", "glance", "neutron", "cinder", "trove"]


def call(method, url, token=None, body=None, ok=(200, 201, 202, 204), headers=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    request.add_header("Accept", "application/json")
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    if token:
        request.add_header("X-Auth-Token", token)
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            text = response.read()
            return response.status, (json.loads(text) if text else {}), response.headers
    except urllib.error.HTTPError as error:
        text = error.read()
        if error.code in ok:
            return error.code, (json.loads(text) if text else {}), error.headers
        raise SystemExit("%s %s -> %d %s" % (method, url, error.code, text[:500].decode(errors="replace")))


def token(keystone, user, password, project):
    body = {"auth": {"identity": {"methods": ["password"], "password": {"user": {
        "name": user, "domain": {"id": "default"}, "password": password}}},
        "scope": {"project": {"name": project, "domain": {"id": "default"}}}}}
    _, answer, headers = call("POST", keystone + "/v3/auth/tokens", body=body)
    return headers["X-Subject-Token"], answer["token"]


def find(keystone, admin, collection, name, **query):
    extra = "".join("&%s=%s" % item for item in query.items())
    _, answer, _ = call("GET", "%s/v3/%s?name=%s%s" % (keystone, collection, name, extra), admin)
    items = answer[collection]
    return items[0] if items else None


def ensure(keystone, admin, collection, singular, body):
    existing = find(keystone, admin, collection, body["name"])
    if existing:
        return existing
    _, answer, _ = call("POST", "%s/v3/%s" % (keystone, collection), admin, {singular: body})
    return answer[singular]


def grant(keystone, admin, project, user, role):
    call("PUT", "%s/v3/projects/%s/users/%s/roles/%s" % (keystone, project["id"], user["id"], role["id"]), admin)


def register(args):
    admin, _ = token(args.keystone, "admin", "admin-pass", "admin")
    projects = {name: ensure(args.keystone, admin, "projects", "project", {"name": name, "domain_id": "default"})
                for name in ("service", "mcloud", "mcloud-quota")}
    roles = {name: ensure(args.keystone, admin, "roles", "role", {"name": name})
             for name in ("admin", "member", "reader", "service")}
    mcloud = ensure(args.keystone, admin, "users", "user", {"name": "mcloud", "password": "mcloud-pass", "domain_id": "default"})
    grant(args.keystone, admin, projects["mcloud"], mcloud, roles["member"])
    grant(args.keystone, admin, projects["mcloud-quota"], mcloud, roles["member"])
    for name in SERVICE_USERS:
        user = ensure(args.keystone, admin, "users", "user", {"name": name, "password": args.service_password, "domain_id": "default"})
        grant(args.keystone, admin, projects["service"], user, roles["admin"])
        grant(args.keystone, admin, projects["service"], user, roles["service"])
    for entry in args.endpoint:
        kind, url = entry.split("=", 1)
        _, answer, _ = call("GET", "%s/v3/services?type=%s" % (args.keystone, kind), admin)
        service = answer["services"][0] if answer["services"] else call(
            "POST", args.keystone + "/v3/services", admin, {"service": {"type": kind, "name": SERVICES[kind]}})[1]["service"]
        _, answer, _ = call("GET", "%s/v3/endpoints?service_id=%s" % (args.keystone, service["id"]), admin)
        have = {item["interface"]: item for item in answer["endpoints"]}
        for interface in ("public", "internal", "admin"):
            if interface in have and have[interface]["url"] == url:
                continue
            if interface in have:
                call("DELETE", "%s/v3/endpoints/%s" % (args.keystone, have[interface]["id"]), admin)
            call("POST", args.keystone + "/v3/endpoints", admin, {"endpoint": {
                "service_id": service["id"], "interface": interface, "url": url, "region_id": "RegionOne"}})


def endpoint(catalog, kind):
    for service in catalog:
        if service["type"] == kind:
            return next(e["url"] for e in service["endpoints"] if e["interface"] == "public")
    raise SystemExit("no %s endpoint in the catalog" % kind)


def resources(args):
    admin, admin_token = token(args.keystone, "admin", "admin-pass", "admin")
    catalog = admin_token["catalog"]
    nova, glance, cinder = endpoint(catalog, "compute"), endpoint(catalog, "image"), endpoint(catalog, "volumev3")
    # The compute host registers within seconds (periodic_fuzzy_delay = 0); boots fail until it has.
    deadline = time.time() + 120
    while not call("GET", nova + "/os-hypervisors", admin)[1]["hypervisors"]:
        if time.time() > deadline:
            raise SystemExit("nova-compute did not register a hypervisor within 120 s")
        time.sleep(1)

    _, answer, _ = call("GET", glance + "/v2/images?name=mcloud-test-image", admin)
    image = answer["images"][0] if answer["images"] else None
    if image is None or image["status"] != "active":
        if image:
            call("DELETE", "%s/v2/images/%s" % (glance, image["id"]), admin)
        _, image, _ = call("POST", glance + "/v2/images", admin, {
            "name": "mcloud-test-image", "disk_format": "raw", "container_format": "bare", "visibility": "public"})
        request = urllib.request.Request("%s/v2/images/%s/file" % (glance, image["id"]), data=b"\0" * 1024, method="PUT")
        request.add_header("Content-Type", "application/octet-stream")
        request.add_header("X-Auth-Token", admin)
        urllib.request.urlopen(request, timeout=60).read()

    flavors = {f["name"]: f for f in call("GET", nova + "/flavors/detail?is_public=None", admin)[1]["flavors"]}
    for name, vcpus, ram, disk in (("mcloud.tiny", 1, 512, 1), ("mcloud.small", 2, 2048, 10), ("mcloud.large", 4, 8192, 20),
                                  ("mcloud.xlarge", 8, 32768, 40)):
        if name not in flavors:
            flavors[name] = call("POST", nova + "/flavors", admin, {"flavor": {"name": name, "vcpus": vcpus, "ram": ram, "disk": disk}})[1]["flavor"]

    # A catalog without spec.vm.image finds Debian 12 by Glance's os_distro and os_version (docs/manifests.md).
    patch = [{"op": "add", "path": "/" + key, "value": value}
             for key, value in (("os_distro", "debian"), ("os_version", "12")) if image.get(key) != value]
    if patch:
        call("PATCH", "%s/v2/images/%s" % (glance, image["id"]), admin, patch,
             headers={"Content-Type": "application/openstack-images-v2.1-json-patch"})

    # The engines the retail-bank example's ManagedDatabases ask for; the fake guest runs any of them.
    manage = shlex.split(args.trove_manage)
    for datastore, version in DATASTORES:
        for step in (["datastore_update", datastore, ""],
                     ["datastore_version_update", datastore, version, datastore, image["id"], "", "1"],
                     ["datastore_update", datastore, version]):
            subprocess.run(manage + step, check=True)

    # Room for the engine end-to-end test (all clouds of the retail-bank example share this bed) and the
    # 20-server benchmark; Trove's servers and volumes live in project service.
    network = endpoint(catalog, "network")
    for name in ("mcloud", "service"):
        project = find(args.keystone, admin, "projects", name)
        call("PUT", "%s/os-quota-sets/%s" % (nova, project["id"]), admin, {"quota_set": {"instances": 100, "cores": -1, "ram": -1}})
        call("PUT", "%s/os-quota-sets/%s" % (cinder, project["id"]), admin, {"quota_set": {"gigabytes": -1, "volumes": -1}})
        call("PUT", "%s/v2.0/quotas/%s" % (network, project["id"]), admin, {"quota": {"security_group": -1, "security_group_rule": -1}})

    # Quotas that make every create fail at once in project mcloud-quota: Nova answers 403, Cinder 413.
    quota_project = find(args.keystone, admin, "projects", "mcloud-quota")
    call("PUT", "%s/os-quota-sets/%s" % (nova, quota_project["id"]), admin, {"quota_set": {"instances": 0}})
    call("PUT", "%s/os-quota-sets/%s" % (cinder, quota_project["id"]), admin, {"quota_set": {"gigabytes": 0, "volumes": 0}})

    user_token, info = token(args.keystone, "mcloud", "mcloud-pass", "mcloud")
    user_id = info["user"]["id"]
    existing = call("GET", "%s/v3/users/%s/application_credentials?name=mcloud-testbed" % (args.keystone, user_id), user_token)[1]
    for credential in existing["application_credentials"]:
        call("DELETE", "%s/v3/users/%s/application_credentials/%s" % (args.keystone, user_id, credential["id"]), user_token)
    credential = call("POST", "%s/v3/users/%s/application_credentials" % (args.keystone, user_id), user_token,
                      {"application_credential": {"name": "mcloud-testbed"}})[1]["application_credential"]

    auth_url = args.keystone + "/v3"
    def password_cloud(user, password, project):
        return ("    auth:\n      auth_url: %s\n      username: %s\n      password: %s\n      project_name: %s\n"
                "      user_domain_name: Default\n      project_domain_name: Default\n"
                "    region_name: RegionOne\n    interface: public\n    identity_api_version: 3\n") % (auth_url, user, password, project)
    clouds = "clouds:\n"
    clouds += "  mcloud:\n" + password_cloud("mcloud", "mcloud-pass", "mcloud")
    clouds += "  mcloud-quota:\n" + password_cloud("mcloud", "mcloud-pass", "mcloud-quota")
    clouds += "  admin:\n" + password_cloud("admin", "admin-pass", "admin")
    clouds += ("  mcloud-appcred:\n    auth_type: v3applicationcredential\n    auth:\n      auth_url: %s\n"
               "      application_credential_id: %s\n      application_credential_secret: %s\n"
               "    region_name: RegionOne\n    interface: public\n") % (auth_url, credential["id"], credential["secret"])
    with open(args.dir + "/clouds.yaml", "w") as handle:
        handle.write(clouds)
    env = {
        "MCLOUD_TEST_OS_CLIENT_CONFIG_FILE": args.dir + "/clouds.yaml",
        "MCLOUD_TEST_OS_CLOUD": "mcloud",
        "MCLOUD_TEST_OS_APPCRED_CLOUD": "mcloud-appcred",
        "MCLOUD_TEST_OS_QUOTA_CLOUD": "mcloud-quota",
        "MCLOUD_TEST_OS_ADMIN_CLOUD": "admin",
        "MCLOUD_TEST_OS_AUTH_URL": auth_url,
        "MCLOUD_TEST_OS_IMAGE_ID": image["id"],
        "MCLOUD_TEST_OS_DATASTORE": "mysql",
        "MCLOUD_TEST_OS_DATASTORE_VERSION": "5.7.29",
    }
    with open(args.dir + "/env", "w") as handle:
        handle.write("".join("%s=%s\n" % item for item in env.items()))


def wait_empty(what, list_items, limit=300):
    deadline = time.time() + limit
    while True:
        left = list_items()
        if not left:
            return
        if time.time() > deadline:
            raise SystemExit("sweep: %d %s still there after %d s: %s" % (len(left), what, limit, ", ".join(left[:5])))
        time.sleep(2)


def sweep(args):
    user, info = token(args.keystone, "mcloud", "mcloud-pass", "mcloud")
    catalog = info["catalog"]
    trove, nova = endpoint(catalog, "database"), endpoint(catalog, "compute")
    cinder, neutron = endpoint(catalog, "volumev3"), endpoint(catalog, "network")

    def instances():
        return [i["id"] for i in call("GET", trove + "/instances?limit=1000", user)[1]["instances"]]
    for instance in instances():
        call("DELETE", "%s/instances/%s" % (trove, instance), user, ok=(202, 204, 404))
    wait_empty("Trove instances", instances)

    def servers():
        return [s["id"] for s in call("GET", nova + "/servers?limit=1000", user)[1]["servers"]]
    for server in servers():
        call("DELETE", "%s/servers/%s" % (nova, server), user, ok=(204, 404))
    wait_empty("servers", servers)

    def volumes():
        return [v["id"] for v in call("GET", cinder + "/volumes?limit=1000", user)[1]["volumes"]]
    for volume in volumes():
        call("DELETE", "%s/volumes/%s?cascade=true" % (cinder, volume), user, ok=(202, 404))
    wait_empty("volumes", volumes)

    groups = call("GET", neutron + "/v2.0/security-groups?project_id=" + info["project"]["id"], user)[1]["security_groups"]
    for group in groups:
        if group["name"] != "default":
            call("DELETE", "%s/v2.0/security-groups/%s" % (neutron, group["id"]), user, ok=(204, 404, 409))
    print("sweep: project mcloud is empty")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("phase", choices=["register", "resources", "sweep"])
    parser.add_argument("--keystone", required=True)
    parser.add_argument("--dir", required=True)
    parser.add_argument("--service-password", required=True)
    parser.add_argument("--trove-manage", default="")
    parser.add_argument("--endpoint", action="append", default=[])
    args = parser.parse_args()
    {"register": register, "resources": resources, "sweep": sweep}[args.phase](args)


if __name__ == "__main__":
    sys.exit(main())
