#!/usr/bin/env python3
"""An independent SOPS decryption, written from sops's format rather than from mcloud's code: the data key from
the first `sops.age` entry `age -d` opens, every value under a key matching `encrypted_regex` opened with AES-256-GCM
(the IV as stored, the value's path joined by ':' with a trailing ':' as associated data), and the MAC checked: the
uppercase hex SHA-512 of every value in document order, encrypted with `lastmodified` as associated data.

    sops_decrypt.py DOCUMENT IDENTITY_FILE   prints the decrypted document (without `sops`) as JSON; exits 1 on error
"""
import base64
import datetime
import hashlib
import json
import re
import subprocess
import sys

import yaml
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

ENC = re.compile(r"^ENC\[AES256_GCM,data:(.+),iv:(.+),tag:(.+),type:(.+)\]$")


def fail(message):
    print(message, file=sys.stderr)
    sys.exit(1)


def open_value(text, key, associated):
    if text == "":
        return ""
    match = ENC.match(text)
    if not match:
        fail(f"{associated} is not an ENC[AES256_GCM,...] value")
    data, iv, tag = (base64.b64decode(match.group(i), validate=True) for i in (1, 2, 3))
    if match.group(4) != "str":
        fail(f"{associated} has type {match.group(4)}")
    if len(iv) != 32 or len(tag) != 16:
        fail(f"{associated}: sops writes a 32-byte IV and a 16-byte tag, not {len(iv)} and {len(tag)}")
    try:
        return AESGCM(key).decrypt(iv, data + tag, associated.encode()).decode()
    except Exception:
        fail(f"{associated} does not decrypt")


def main():
    document_path, identity_path = sys.argv[1:3]
    with open(document_path, encoding="utf-8") as handle:
        # Every scalar a string, as in a Secret; a plain timestamp stays the text the MAC was bound to.
        document = yaml.load(handle, Loader=yaml.BaseLoader)
    metadata = document.pop("sops")
    for field in ("age", "lastmodified", "mac", "encrypted_regex", "version"):
        if field not in metadata:
            fail(f"sops.{field} is missing")
    datetime.datetime.strptime(metadata["lastmodified"], "%Y-%m-%dT%H:%M:%SZ")
    key = None
    for entry in metadata["age"]:
        run = subprocess.run(["age", "-d", "-i", identity_path], input=entry["enc"].encode(), capture_output=True)
        if run.returncode == 0:
            key = run.stdout
            break
    if key is None or len(key) != 32:
        fail("no sops.age entry opens to a 32-byte data key with this identity")
    regex = re.compile(metadata["encrypted_regex"])
    digest = hashlib.sha512()

    def walk(node, path):
        if isinstance(node, dict):
            return {name: walk(value, path + [name]) for name, value in node.items()}
        if isinstance(node, list):
            return [walk(value, path) for value in node]
        value = node
        if any(regex.search(part) for part in path):
            value = open_value(node, key, ":".join(path) + ":")
        digest.update(value.encode())
        return value

    plain = walk(document, [])
    if open_value(metadata["mac"], key, metadata["lastmodified"]) != digest.hexdigest().upper():
        fail("the MAC does not match the values")
    print(json.dumps(plain))


main()
