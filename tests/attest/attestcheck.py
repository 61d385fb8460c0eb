# SPDX-License-Identifier: Apache-2.0
"""Independent checks of attestation reports for tests/attest/attest.sh and
tests/attest/dsse.sh.

Written from SPEC 7 and 7.1 (and DSSE's own protocol.md) alone, not from
the C code: the canonical form is Python's json.dumps with sorted keys
and no whitespace, and the signature is checked by the openssl command
line or by securesystemslib, not by harn-egressd.

  attestcheck.py canon REPORT MSG SIG   write the signed bytes and signature
  attestcheck.py fields REPORT CHECKS   check members: NAME=VALUE (JSON)
  attestcheck.py tamper REPORT DIR      one altered copy per value: DIR/N.json
  attestcheck.py get REPORT PATH        print one member (a.b.c) as JSON

  attestcheck.py dsse ENV DIR           the envelope's parts as files in DIR:
                                        type, payload, sig, keyid
  attestcheck.py statement ENV CHECKS   check the statement's members
  attestcheck.py keyid PUB              the key id of a public key (PEM)
  attestcheck.py dssetamper ENV DIR     one envelope per altered value of
                                        the statement, signature kept
  attestcheck.py sslib ENV PUB          verify with securesystemslib's
                                        Ed25519 (PAE built here)
"""
import base64
import hashlib
import json
import os
import sys


def load(path):
    with open(path, "rb") as f:
        return json.loads(f.read().decode("utf-8"))


def canonical(obj):
    return json.dumps(obj, sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False).encode("utf-8")


def cmd_canon(report, msg, sig):
    r = load(report)
    s = r.pop("signature")
    with open(msg, "wb") as f:
        f.write(b"harn egress attestation v1\n" + canonical(r))
    with open(sig, "wb") as f:
        f.write(base64.b64decode(s["value"], validate=True))
    # The file itself is in canonical form, signature included.
    with open(report, "rb") as f:
        text = f.read()
    r["signature"] = s
    if text != canonical(r) + b"\n":
        print("the report file is not in canonical form")
        return 1
    return 0


def get(obj, path):
    for part in path.split("."):
        obj = obj[int(part)] if isinstance(obj, list) else obj[part]
    return obj


def cmd_fields(report, *checks):
    r = load(report)
    bad = 0
    for c in checks:
        name, want = c.split("=", 1)
        try:
            got = get(r, name)
        except (KeyError, IndexError, TypeError):
            got = "<missing>"
        if got != json.loads(want):
            print("%s: got %s, want %s" % (name, json.dumps(got), want))
            bad += 1
    return 1 if bad else 0


def leaves(obj, path=()):
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from leaves(v, path + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from leaves(v, path + (i,))
    else:
        yield path, obj


def altered(v):
    if isinstance(v, bool):
        return not v
    if isinstance(v, int):
        return v + 1
    if isinstance(v, str):
        return v[:-1] + ("0" if v[-1:] != "0" else "1") if v else "x"
    return 0    # null


def put(obj, path, value):
    for p in path[:-1]:
        obj = obj[p]
    obj[path[-1]] = value


def cmd_tamper(report, outdir):
    """Every value of the report changed in turn, then members added and
    removed; each copy is in canonical form (and ends in a newline, as
    harn-egressd writes it) so only content differs."""
    r = load(report)
    n = 0
    for path, v in leaves(r):
        if path[0] == "signature":
            continue
        copy = json.loads(json.dumps(r))
        put(copy, path, altered(v))
        n += 1
        with open(os.path.join(outdir, "%d.json" % n), "wb") as f:
            f.write(canonical(copy) + b"\n")
    for key in list(r):
        if key == "signature":
            continue
        copy = json.loads(json.dumps(r))
        del copy[key]
        n += 1
        with open(os.path.join(outdir, "%d.json" % n), "wb") as f:
            f.write(canonical(copy) + b"\n")
    copy = json.loads(json.dumps(r))
    copy["policy"]["extra"] = 1
    n += 1
    with open(os.path.join(outdir, "%d.json" % n), "wb") as f:
        f.write(canonical(copy) + b"\n")
    print(n)
    return 0


def cmd_get(report, path):
    print(json.dumps(get(load(report), path)))
    return 0


def cmd_sha256(path):
    with open(path, "rb") as f:
        print(hashlib.sha256(f.read()).hexdigest())
    return 0


def cmd_argvsha(*argv):
    print(hashlib.sha256(b"".join(a.encode() + b"\0" for a in argv))
          .hexdigest())
    return 0


# ---------------------------------------------------------------- SPEC 7.1

def b64decode_dsse(s):
    """DSSE allows the standard or the URL-safe alphabet."""
    s = s + "=" * (-len(s) % 4)
    try:
        return base64.b64decode(s, validate=True)
    except ValueError:
        return base64.urlsafe_b64decode(s)


def pae(ptype, body):
    """protocol.md: "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body."""
    t = ptype.encode("utf-8")
    return b"DSSEv1 %d %s %d %s" % (len(t), t, len(body), body)


def load_envelope(path):
    env = load(path)
    return env, b64decode_dsse(env["payload"])


def cmd_dsse(path, outdir):
    env, payload = load_envelope(path)
    sig = env["signatures"][0]
    for name, data in (("type", env["payloadType"].encode("utf-8")),
                       ("payload", payload),
                       ("sig", b64decode_dsse(sig["sig"])),
                       ("keyid", sig["keyid"].encode("ascii"))):
        with open(os.path.join(outdir, name), "wb") as f:
            f.write(data)
    bad = 0
    # The payload and the file are each in canonical form.
    if payload != canonical(json.loads(payload.decode("utf-8"))):
        print("the payload is not in canonical form")
        bad = 1
    with open(path, "rb") as f:
        if f.read() != canonical(env) + b"\n":
            print("the envelope file is not in canonical form")
            bad = 1
    return bad


def cmd_statement(path, *checks):
    _, payload = load_envelope(path)
    tmp = path + ".statement"
    with open(tmp, "wb") as f:
        f.write(payload)
    try:
        return cmd_fields(tmp, *checks)
    finally:
        os.unlink(tmp)


def raw_public_key(pub):
    """The 32 bytes of an Ed25519 SubjectPublicKeyInfo (RFC 8410)."""
    with open(pub, "rb") as f:
        lines = f.read().decode("ascii").split("\n")
    der = base64.b64decode("".join(ln for ln in lines
                                   if ln and not ln.startswith("-----")))
    prefix = bytes.fromhex("302a300506032b6570032100")
    if len(der) != 44 or not der.startswith(prefix):
        raise ValueError("%s: not an Ed25519 public key" % pub)
    return der[12:]


def cmd_keyid(pub):
    print(hashlib.sha256(raw_public_key(pub)).hexdigest())
    return 0


def cmd_dssetamper(path, outdir):
    """Every value of the statement changed in turn, and members added
    and removed, each re-encoded as the payload under the same signature:
    whatever the change, the signature must no longer hold."""
    env, payload = load_envelope(path)
    st = json.loads(payload.decode("utf-8"))
    copies = []
    for p, v in leaves(st):
        copy = json.loads(payload.decode("utf-8"))
        put(copy, p, altered(v))
        copies.append(copy)
    for key in list(st):
        copy = json.loads(payload.decode("utf-8"))
        del copy[key]
        copies.append(copy)
    copy = json.loads(payload.decode("utf-8"))
    copy["subject"].append({"name": "extra", "digest": {"sha256": "0" * 64}})
    copies.append(copy)
    for n, copy in enumerate(copies, 1):
        e = dict(env)
        e["payload"] = base64.b64encode(canonical(copy)).decode("ascii")
        with open(os.path.join(outdir, "%d.json" % n), "wb") as f:
            f.write(canonical(e) + b"\n")
    print(len(copies))
    return 0


def cmd_sslib(path, pub):
    """securesystemslib's Ed25519 verification of the envelope's signature
    over PAE, with the public key alone.  Exit 0 verified, 1 not."""
    from securesystemslib.signer import Signature, SSlibKey
    from securesystemslib import exceptions

    env, payload = load_envelope(path)
    sig = env["signatures"][0]
    key = SSlibKey(sig["keyid"], "ed25519", "ed25519",
                   {"public": raw_public_key(pub).hex()})
    signature = Signature(sig["keyid"], b64decode_dsse(sig["sig"]).hex())
    try:
        key.verify_signature(signature, pae(env["payloadType"], payload))
    except exceptions.UnverifiedSignatureError as e:
        print("not verified: %s" % e)
        return 1
    print("verified by %s" % sig["keyid"])
    return 0


if __name__ == "__main__":
    cmds = {"canon": cmd_canon, "fields": cmd_fields, "tamper": cmd_tamper,
            "get": cmd_get, "sha256": cmd_sha256, "argvsha": cmd_argvsha,
            "dsse": cmd_dsse, "statement": cmd_statement,
            "keyid": cmd_keyid, "dssetamper": cmd_dssetamper,
            "sslib": cmd_sslib}
    sys.exit(cmds[sys.argv[1]](*sys.argv[2:]))
