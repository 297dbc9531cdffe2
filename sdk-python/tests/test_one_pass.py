"""`loads` expands unverified bytes in one checked pass: for any bytes it must
behave exactly as the strict path (`validate`, then expanding the verified
buffer): the same value for every buffer the verifier accepts, the same
exception class, kind and offset for every buffer it rejects.

The buffers are the conformance fixtures, the C++ goldens of the build
cases, the typed goldens and the invalid corpus,
and seeded random mutations of them (byte changes, truncations, splices),
which reach the checks a well-formed buffer never does.
"""

from __future__ import annotations

import gc
import json
import math
import random
import sys
import tracemalloc
from pathlib import Path
from typing import Any, Callable

import pytest

import flexbuf

CONFORMANCE = Path(__file__).resolve().parents[2] / "conformance"
FIXTURES = sorted((CONFORMANCE / "fixtures").glob("*.json"))
INVALID = sorted((CONFORMANCE / "invalid").glob("*.bin"))
CASES = sorted((CONFORMANCE / "cases").glob("*.json"))
TYPED = sorted((CONFORMANCE / "typed" / "goldens").glob("*.bin"))


def strict(data: bytes) -> tuple[str, Any]:
    """The outcome of verifying first, then expanding."""
    try:
        flexbuf.validate(data)
        return ("ok", flexbuf.read(data, verify=True).to_python())
    except flexbuf.FlexError as e:
        return (type(e).__name__, (e.kind, e.offset))


def memory_kept(work: Callable[[], object], warm: int = 3, rounds: int = 20) -> int:
    """Bytes still allocated after `rounds` calls of `work`, counted from
    after `warm` calls (which fill the caches a decode keeps) and with
    garbage collected at both ends."""
    tracemalloc.start()
    try:
        for _ in range(warm):
            work()
        gc.collect()
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(rounds):
            work()
        gc.collect()
        return int(tracemalloc.get_traced_memory()[0] - before)
    finally:
        tracemalloc.stop()


def one_pass(data: bytes) -> tuple[str, Any]:
    try:
        return ("ok", flexbuf.loads(data))
    except flexbuf.FlexError as e:
        return (type(e).__name__, (e.kind, e.offset))


def same(a: Any, b: Any) -> bool:
    """Equality that also holds between two NaNs and checks types exactly."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    return bool(a == b)


def check(data: bytes) -> None:
    want, got = strict(data), one_pass(data)
    assert got[0] == want[0], (data[:64].hex(), want, got)
    if want[0] == "ok":
        assert same(got[1], want[1]), data[:64].hex()
    else:
        assert got[1] == want[1], (data[:64].hex(), want, got)


def mutations(data: bytes, rng: random.Random, count: int) -> list[bytes]:
    out = []
    for _ in range(count):
        b = bytearray(data)
        op = rng.randrange(4)
        if op == 0 and b:  # change a few bytes
            for _ in range(rng.randint(1, 4)):
                b[rng.randrange(len(b))] = rng.randrange(256)
        elif op == 1 and b:  # change a byte near the end (types, widths, root)
            i = max(0, len(b) - 1 - rng.randrange(min(len(b), 24)))
            b[i] = rng.randrange(256)
        elif op == 2 and len(b) > 3:  # truncate, keeping a root trailer
            cut = rng.randrange(1, len(b) - 2)
            b = b[:-cut - 2] + b[-2:]
        elif b:  # copy a run of bytes over another place
            i, j = rng.randrange(len(b)), rng.randrange(len(b))
            n = rng.randint(1, 16)
            b[j : j + n] = b[i : i + n]
        out.append(bytes(b))
    return out


def seeds() -> list[bytes]:
    bufs = [flexbuf.dumps(json.loads(p.read_text())) for p in FIXTURES]
    bufs += [flexbuf.dumps(json.loads(p.read_text()), share_strings=True) for p in FIXTURES]
    for p in CASES:
        bufs += [bytes.fromhex(c["bytes"]) for c in json.loads(p.read_text())["cases"]]
    bufs += [p.read_bytes() for p in TYPED]
    bufs += [p.read_bytes() for p in INVALID]
    return bufs


def test_the_corpora_agree() -> None:
    corpus = seeds()
    assert len(corpus) > 400
    for data in corpus:
        check(data)


def test_invalid_buffers_are_rejected_as_the_verifier_rejects_them() -> None:
    rejected = 0
    for p in INVALID:
        data = p.read_bytes()
        if strict(data)[0] != "ok":
            rejected += 1
        check(data)
    assert rejected > 100


@pytest.mark.parametrize("seed", range(4))
def test_mutated_buffers_agree(seed: int) -> None:
    rng = random.Random(seed)
    corpus = seeds()
    small = [b for b in corpus if len(b) <= 4096]
    large = [b for b in corpus if len(b) > 4096]
    outcomes: set[str] = set()
    for data in small:
        for m in mutations(data, rng, 12):
            check(m)
            outcomes.add(strict(m)[0])
    for data in rng.sample(large, min(len(large), 6)):
        for m in mutations(data, rng, 3):
            check(m)
            outcomes.add(strict(m)[0])
    # The mutations reach both outcomes, so agreement was tested on each.
    assert "ok" in outcomes and "ValidationError" in outcomes, outcomes


def key_set_doc() -> dict[str, Any]:
    """Maps that repeat their keys: records of a list, a tree whose levels
    have the same keys, and two key sets of the same size and first key in
    turn (one set's keys must never be read for the other's)."""
    records = [{"a": i, "b": str(i), "c": [i, -i], "d": {"a": i, "b": i * 0.5}} for i in range(40)]
    turns = [{"a": i, "b": "B"} if i % 2 else {"a": i, "c": "C"} for i in range(20)]
    tree: dict[str, Any] = {"k": 0, "v": None}
    level = tree
    for i in range(1, 30):
        level["v"] = {"k": i, "v": None}
        level = level["v"]
    return {"records": records, "turns": turns, "tree": tree}


def test_maps_that_repeat_their_keys_read_as_written() -> None:
    doc = key_set_doc()
    rng = random.Random(1204)
    for share in (False, True):
        data = flexbuf.dumps(doc, share_strings=share)
        assert flexbuf.loads(data) == doc
        assert flexbuf.read(data, verify=True).to_python() == doc
        # Broken copies: `loads` agrees with the strict path and, where the
        # verifier accepts, with the value-by-value reader of unverified
        # references (which keeps no key sets).
        accepted = 0
        for m in mutations(data, rng, 600):
            check(m)
            if strict(m)[0] == "ok":
                accepted += 1
                assert same(flexbuf.loads(m), flexbuf.read(m).to_python()), m.hex()
        assert accepted > 20, accepted


def test_dicts_find_their_keys_by_hash() -> None:
    """Keys met again go into their dicts by the hash the key object has
    cached: every lookup by an equal `str` made elsewhere, membership, and
    deletion then find them, in dicts of every size (up to and past the
    sizes whose tables are made at once)."""
    keys = [f"k{i}" for i in range(40)] + ["é", "日本", "🙂", ""]
    doc = [{k: i for k in keys[: 1 + i % len(keys)]} for i in range(3 * len(keys))]
    for out in (flexbuf.loads(flexbuf.dumps(doc)), flexbuf.read(flexbuf.dumps(doc), verify=True).to_python()):
        assert out == doc
        for i, d in enumerate(out):
            for k in keys[: 1 + i % len(keys)]:
                probe = "".join(list(k))  # an equal str that is not the key object
                assert d[probe] == i and probe in d
            assert "missing" not in d
            first = next(iter(d))
            del d[first]
            assert first not in d and len(d) == i % len(keys)


def test_maps_of_one_key_set_are_independent_dicts_that_track_their_containers() -> None:
    """Maps that repeat a key set are made as copies of the first one with
    their own values stored in place (`dict_fill`): each must be a dict of
    its own, equal to what was written, tracked by the cycle collector
    whenever it holds a list or dict (the first map of the set may hold
    none), of the size a dict filled key by key has, and give back every
    object it held once dropped."""
    keys = [f"field{i}" for i in range(8)]

    def record(i: int) -> dict[str, Any]:
        # Records 0 and 1 (the first map of the set made when 1 is read)
        # hold only scalars; later ones a list or a dict in a field that
        # moves, or only scalars again.
        r: dict[str, Any] = {k: f"{k}-{i}" if j % 2 else i * 0.5 + j for j, k in enumerate(keys)}
        if i > 1 and i % 3 == 1:
            r[keys[i % 8]] = [i, str(i)]
        elif i > 1 and i % 3 == 2:
            r[keys[(i + 3) % 8]] = {"inner": i}
        return r

    doc = [record(i) for i in range(60)]
    data = flexbuf.dumps(doc)
    out = flexbuf.loads(data)
    assert out == doc
    for d in out:
        if any(isinstance(v, (list, dict)) for v in d.values()):
            assert gc.is_tracked(d), d
    # Each copy has a table of its own.
    out[5]["field0"] = "changed"
    del out[6]["field1"]
    out[7]["new"] = 1
    assert [d for i, d in enumerate(out) if i not in (5, 6, 7)] == [
        d for i, d in enumerate(doc) if i not in (5, 6, 7)
    ]
    assert out[5]["field0"] == "changed" and "field1" not in out[6] and out[7]["new"] == 1
    if sys.implementation.name == "cpython" and (3, 11) <= sys.version_info[:2] <= (3, 13):
        # The compact kind of dict (keys all `str`), as filling one gives.
        filled: dict[str, Any] = {}
        for k, v in out[-1].items():
            filled[k] = v
        assert sys.getsizeof(out[-1]) == sys.getsizeof(filled)
    del out
    grown = memory_kept(lambda: flexbuf.loads(data), rounds=30)
    # One decode makes about 500 objects: a reference kept by each copy
    # would leave tens of kilobytes after thirty.
    assert grown < 4096, grown


def test_maps_met_again_in_later_calls_are_copies_of_their_model() -> None:
    """Records of more keys than a key set takes (33 to 128), short ones,
    met in one call and again in the next are made, from then on, as copies
    of a model kept across calls
    (`dict_models`): every call's records must equal what was written and be
    dicts of their own, whatever was done to the earlier results, and the
    model must keep nothing of them alive (its values are `None`)."""
    keys = [f"f{i:02d}" for i in range(40)]

    def doc(call: int, big: bool = False) -> list[dict[str, Any]]:
        # One record of each of three shapes a call (no key set of its own
        # in the buffer), values that change from call to call.
        return [
            {k: ("x" * 200_000 if big and j == 3 else f"{call}-{j}") for j, k in enumerate(keys)},
            {k: [call, j] for j, k in enumerate(keys[:37])},
            {k: call * 100 + j for j, k in enumerate(reversed(keys[2:]))},
        ]

    for call in range(6):
        expected = doc(call)
        out = flexbuf.loads(flexbuf.dumps(expected))
        assert out == expected, call
        # Results changed after the call leave the next calls' alone.
        out[0]["f00"] = None
        out[1].clear()
        out[2]["extra"] = 1
        for d in out:
            if any(isinstance(v, (list, dict)) for v in d.values()):
                assert gc.is_tracked(d)
    if sys.implementation.name == "cpython" and (3, 11) <= sys.version_info[:2] <= (3, 13):
        last = flexbuf.loads(flexbuf.dumps(doc(9)))[0]
        filled: dict[str, Any] = {}
        for k, v in last.items():
            filled[k] = v
        assert sys.getsizeof(last) == sys.getsizeof(filled)
    # A large value of a copied map goes when its result does.
    data = flexbuf.dumps(doc(7, big=True))

    def read_big() -> None:
        assert len(flexbuf.loads(data)[0]["f03"]) == 200_000

    grown = memory_kept(read_big, warm=1, rounds=5)
    assert grown < 4096, grown


def test_models_kept_across_calls_are_released_when_replaced() -> None:
    """5,000 shapes (36 keys drawn from 48), each decoded in three calls in
    a row, so that each gets a model kept across calls and the table of
    models replaces them again and again: every result is what was
    written, and the models replaced are released."""
    rng = random.Random(1206)
    pool = [f"p{i}" for i in range(48)]
    shapes = [rng.sample(pool, 36) for _ in range(5000)]
    flexbuf.loads(flexbuf.dumps({k: 0 for k in shapes[0]}))

    def every_shape() -> None:
        for j, keys in enumerate(shapes):
            data = flexbuf.dumps({k: j for k in keys})
            for _ in range(3):
                out = flexbuf.loads(data)
                assert len(out) == 36 and all(out[k] == j for k in keys)

    grown = memory_kept(every_shape, warm=0, rounds=1)
    # The table keeps at most 8,192 keys' worth of models (about 200 KB
    # here); keeping every model made would be several megabytes.
    assert grown < 3 << 18, grown


def test_key_sets_release_their_keys() -> None:
    # Keys longer than the shared key table takes (64 bytes) are held only
    # by the decode's key sets and by the dicts made: 150 key sets of three
    # such keys, each met three times, fill every slot of the table of sets
    # and replace most of them. Once a result is dropped, nothing of it may
    # stay alive: a set the decode failed to release would keep its keys.
    doc = [
        {("k" * 70) + f"{j}-{x}": j for x in "abc"}
        for _ in range(3)
        for j in range(150)
    ]
    data = flexbuf.dumps(doc)
    assert flexbuf.loads(data) == doc
    grown = memory_kept(lambda: flexbuf.loads(data))
    # One decode makes 450 keys of about 120 bytes each: a leak of the sets
    # of one decode would be tens of kilobytes, of twenty decodes far more.
    assert grown < 4096, grown


def test_short_inputs_agree() -> None:
    for n in range(0, 4):
        for data in (bytes(n), b"\xff" * n, b"\x01" * n):
            check(data)


def test_buffers_above_a_mebibyte_take_the_one_pass_and_agree() -> None:
    # `loads` checks and builds in one pass at every size (it verified
    # first above 1 MiB until 2026-12-03): the same values, and the
    # verifier's error for a buffer broken anywhere in it.
    api = json.loads((CONFORMANCE / "fixtures" / "api_response.json").read_text())
    api["items"] = api["items"] * 40
    data = flexbuf.dumps(api)
    assert len(data) > 1 << 20
    check(data)
    assert flexbuf.loads(data) == api
    rng = random.Random(1203)
    broken = 0
    for b in mutations(data, rng, 12):
        check(b)
        broken += strict(b)[0] != "ok"
    # A byte of a string near the end made invalid UTF-8: rejected at the
    # verifier's offset.
    bad = bytearray(data)
    bad[data.rindex(b"T10:") + 1] = 0xFF
    check(bytes(bad))
    assert strict(bytes(bad))[0] != "ok"
    assert broken > 0


def test_buffers_of_one_off_keys_read_as_written() -> None:
    # Past 512 keys made with few found again, a decode stops putting keys
    # in the shared key table (a map keyed by ids would only churn it) and
    # makes the rest itself: keys after the switch, short and long, ASCII
    # and not, in maps of their own and in records, read as written.
    doc: dict[str, Any] = {
        "by_id": {f"id{i * 7919 % 3000}": i for i in range(3000)},
        "long": {"k" * 20 + str(i): [i] for i in range(700)},
        "records": [{"name": f"n{i}", "v": i, "ok": i % 2 == 0} for i in range(300)],
        "wide": {f"é{i}": i for i in range(50)},
        "z": {"id5": "again", "id6": None},
    }
    rng = random.Random(1205)
    for share in (False, True):
        data = flexbuf.dumps(doc, share_strings=share)
        assert flexbuf.loads(data) == doc
        check(data)
        for m in mutations(data, rng, 150):
            check(m)
    # The table still serves decodes after one that left it.
    small = {"alpha": 1, "beta": [{"alpha": 2, "gamma": 3}]}
    data = flexbuf.dumps(small)
    assert flexbuf.loads(data) == small
    assert flexbuf.loads(data) == small


@pytest.mark.parametrize("name", ["user_profile", "api_response", "wide_map"])
def test_a_documents_keys_are_made_once_and_then_shared(name: str) -> None:
    # Every key of these documents fits the process-wide key table: after
    # one decode, the next finds each key there and gives the same `str`
    # object. Each of the three documents has two keys that hash to the same
    # slot of the table, which must keep both (each of a slot's two places
    # takes one) rather than make them again on every decode.
    doc = json.loads((CONFORMANCE / "fixtures" / f"{name}.json").read_text())
    keys: list[str] = []

    def collect(v: Any) -> None:
        if isinstance(v, dict):
            keys.extend(v)
            for x in v.values():
                collect(x)
        elif isinstance(v, list):
            for x in v:
                collect(x)

    collect(doc)
    flat = {k: i for i, k in enumerate(dict.fromkeys(keys))}
    data = flexbuf.dumps(flat)
    first = list(flexbuf.loads(data))
    second = list(flexbuf.loads(data))
    assert first == second == sorted(flat, key=lambda k: k.encode())
    remade = [a for a, b in zip(first, second) if a is not b]
    assert remade == [], remade
