#!/usr/bin/python3
"""The machine of a result apart from its software stack, as arbench computes them
(bench/results/machine_stack.cpp; docs/regression.md "Machine and stack"), for the nightly.

usage: stack.py machine RESULT.json      the machine id (16 hex digits; "" when unknown)
       stack.py diff BASE.json NEW.json  the platform stack changes, one line
                                         ("NCCL 2.28.9 → 2.29.2, driver ..."; "" when none)

A result written before the split (no provenance.machine) is migrated the way arbench reads it:
its fingerprint fields without the stack's, plus the PCIe relations of provenance.topology.
tests/scripts/test_nightly.sh checks that this id equals `arbench compare`'s. Standard library
only.
"""
import json
import sys

STACK_KEYS = ["driver", "cuda_runtime", "nccl_version", "nccl_library", "arbench_version",
              "arbench_revision", "peers"]
PLATFORM = STACK_KEYS[:4]
LABELS = {"cuda_runtime": "CUDA runtime", "nccl_version": "NCCL", "nccl_library": "NCCL library",
          "arbench_version": "arbench", "arbench_revision": "arbench revision"}


def _text(v):
    return v if isinstance(v, str) else json.dumps(v, separators=(",", ":"))


def machine_fields(prov):
    m = prov.get("machine")
    if isinstance(m, dict) and isinstance(m.get("fields"), dict):
        return {k: _text(v) for k, v in m["fields"].items()}
    ff = prov.get("fingerprint_fields")
    fields = {k: _text(v) for k, v in ff.items() if k not in STACK_KEYS} if isinstance(ff, dict) else {}
    rel = (((prov.get("topology") or {}).get("topology") or {}).get("relations") or {}).get("matrix")
    if fields and isinstance(rel, list) and rel:
        fields["pcie"] = ";".join(",".join(_text(c) for c in row) if isinstance(row, list) else ""
                                  for row in rel)
    return fields


def fnv1a_hex(text):
    h = 0xcbf29ce484222325
    for b in text.encode():
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


def machine_id(prov):
    fields = machine_fields(prov)
    return fnv1a_hex("".join(f"{k}={fields[k]}\n" for k in sorted(fields))) if fields else ""


def stack(prov):
    src = prov.get("stack") if isinstance(prov.get("stack"), dict) else prov
    return {k: _text(src[k]) for k in STACK_KEYS if src.get(k) is not None}


def changes(base, new, keys=PLATFORM):
    """[(key, base value, new value)] of the keys both record and differ in."""
    a, b = stack(base), stack(new)
    return [(k, a[k], b[k]) for k in keys if k in a and k in b and a[k] != b[k]]


def changes_text(ch):
    return ", ".join(f"{LABELS.get(k, k)} {a or '(none)'} \u2192 {b or '(none)'}" for k, a, b in ch)


def short(prov):
    """The platform stack in a few words, for the history and the page: 'driver 580.65 · ...'."""
    s = stack(prov)
    return " \u00b7 ".join(f"{LABELS.get(k, k)} {s[k]}" for k in PLATFORM if s.get(k))


def _prov(path):
    try:
        with open(path, encoding="utf-8") as f:
            p = json.load(f)["arbench"]["provenance"]
        if not isinstance(p, dict):
            raise TypeError
        return p
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"stack.py: {path}: not an arbench result with a provenance ({e})", file=sys.stderr)
        sys.exit(2)


def main(argv):
    if len(argv) == 2 and argv[0] == "machine":
        print(machine_id(_prov(argv[1])))
    elif len(argv) == 3 and argv[0] == "diff":
        print(changes_text(changes(_prov(argv[1]), _prov(argv[2]))))
    else:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main(sys.argv[1:])
