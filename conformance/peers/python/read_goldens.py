"""Peer column: PyPI `flatbuffers` (module flatbuffers.flexbuffers) reading the goldens.

Reads every case of conformance/cases/*.json with the library's public
reader (GetRoot, Ref.As*, the vector and map accessors), rebuilds the
annotated notation of conformance/README.md from it, compares with the case's
"value", and prints one result line (informational). Widths come from the
Ref's slot width (inline scalars) or packed width (everything else).

Usage: python read_goldens.py CASES_DIR
"""

import glob
import json
import math
import os
import sys

from flatbuffers import flexbuffers

LANG = "python flatbuffers (peer)"
INLINE = {"null", "bool", "int", "uint", "float"}


def annotate(ref):
    name = ref._type.name.lower()  # the Type enum names match the notation's
    if name in INLINE:
        width = ref._parent_width
    elif name == "key":
        width = 1
    else:
        width = ref._byte_width
    if ref.IsNull:
        payload = None
    elif ref.IsBool:
        payload = ref.AsBool
    elif name in ("int", "uint", "indirect_int", "indirect_uint"):
        payload = str(ref.AsInt)
    elif name in ("float", "indirect_float"):
        payload = ref.AsFloat  # compared numerically below
    elif ref.IsKey:
        payload = ref.AsKey
    elif ref.IsString:
        payload = ref.AsString
    elif ref.IsBlob:
        payload = bytes(ref.AsBlob).hex()
    elif ref.IsMap:
        m = ref.AsMap
        payload = [[k.AsKey, annotate(v)] for k, v in zip(m.Keys, m.Values)]
    elif ref.IsVector:
        payload = [annotate(e) for e in ref.AsVector]
    elif ref.IsTypedVector:
        payload = [annotate(e) for e in ref.AsTypedVector]
    elif ref.IsFixedTypedVector:
        payload = [annotate(e) for e in ref.AsFixedTypedVector]
    else:
        raise TypeError("unhandled type %s" % name)
    return [name, width, payload]


def same_float(got, want):
    w = float(want)  # "nan", "inf", "-inf", "-0.0" and decimals all parse
    if math.isnan(w):
        return isinstance(got, float) and math.isnan(got)
    return got == w and math.copysign(1.0, got) == math.copysign(1.0, w)


def same(got, want):
    if not (isinstance(want, list) and len(want) == 3 and isinstance(got, list)):
        return got == want
    name, width, payload = want
    if got[0] != name or got[1] != width:
        return False
    if name in ("float", "indirect_float"):
        return same_float(got[2], payload)
    if name == "map":
        return len(got[2]) == len(payload) and all(
            g[0] == w[0] and same(g[1], w[1]) for g, w in zip(got[2], payload)
        )
    if isinstance(payload, list):
        return len(got[2]) == len(payload) and all(
            same(g, w) for g, w in zip(got[2], payload)
        )
    return got[2] == payload


def main():
    cases_dir = sys.argv[1]
    passed, total, failures = 0, 0, []
    for path in sorted(glob.glob(os.path.join(cases_dir, "*.json"))):
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        for case in doc["cases"]:
            total += 1
            try:
                got = annotate(flexbuffers.GetRoot(bytes.fromhex(case["bytes"])))
                if same(got, case["value"]):
                    passed += 1
                    continue
                message = "peer reads %s" % json.dumps(got)[:300]
            except Exception as e:  # the peer's own failure is the finding
                message = "peer failed: %s: %s" % (type(e).__name__, e)
            if len(failures) < 50:
                failures.append("%s: %s" % (case["name"], message))
    print(
        json.dumps(
            {
                "lang": LANG,
                "category": "values identical",
                "passed": passed,
                "total": total,
                "failures": failures,
                "informational": True,
            }
        )
    )


if __name__ == "__main__":
    sys.setrecursionlimit(10000)
    main()
