#!/usr/bin/env python3
"""The password derivation of docs/connectivity.md ("Secrets"), written again from that text with the standard
library only, to cross-check MCloudSecrets: the identity's bech32, HKDF-Extract with the scheme's salt, HKDF-Expand
over length-prefixed labels, and the drawing of 33 characters of [A-Za-z0-9].

    derive_password.py KEY_FILE APPLICATION CELL SERVICE KIND GENERATION   prints the password
"""
import hashlib
import hmac
import struct
import sys

CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
ALPHABET = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


def identity_bytes(path):
    lines = [line.strip() for line in open(path, encoding="utf-8") if line.strip() and not line.startswith("#")]
    text = lines[0].lower()
    values = [CHARSET.index(c) for c in text[text.rindex("1") + 1:]][:-6]
    accumulator, bits, output = 0, 0, []
    for value in values:
        accumulator, bits = (accumulator << 5) | value, bits + 5
        while bits >= 8:
            bits -= 8
            output.append((accumulator >> bits) & 0xFF)
    return bytes(output)


def label(domain, fields):
    return b"".join(struct.pack(">I", len(field)) + field for field in [domain.encode()] + [f.encode() for f in fields])


def expand(key, info, count):
    output, block, counter = b"", b"", 1
    while len(output) < count:
        block = hmac.new(key, block + info + bytes([counter]), hashlib.sha256).digest()
        output, counter = output + block, counter + 1
    return output[:count]


def main():
    path, application, cell, service, kind, generation = sys.argv[1:7]
    root = hmac.new(b"mcloud.io/secrets/v1", identity_bytes(path), hashlib.sha256).digest()
    characters, block = [], 0
    while len(characters) < 33:
        info = label("mcloud/v1/purpose", [application, cell, service, kind, generation, str(block)])
        for byte in expand(root, info, 64):
            if byte < 248 and len(characters) < 33:
                characters.append(chr(ALPHABET[byte % 62]))
        block += 1
    print("".join(characters))


main()
