"""Independent checks of attestation reports for tests/attest.sh.

Written from SPEC 7 alone, not from the C code: the canonical form is
Python's json.dumps with sorted keys and no whitespace, and the
signature is checked by the openssl command line, not by harn-egressd.

  attestcheck.py canon REPORT MSG SIG   write the signed bytes and signature
  attestcheck.py fields REPORT CHECKS   check members: NAME=VALUE (JSON)
  attestcheck.py tamper REPORT DIR      one altered copy per value: DIR/N.json
  attestcheck.py get REPORT PATH        print one member (a.b.c) as JSON
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


if __name__ == "__main__":
    cmds = {"canon": cmd_canon, "fields": cmd_fields, "tamper": cmd_tamper,
            "get": cmd_get, "sha256": cmd_sha256, "argvsha": cmd_argvsha}
    sys.exit(cmds[sys.argv[1]](*sys.argv[2:]))
