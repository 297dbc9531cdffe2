"""Times the generated classes against msgspec Structs on three record
collections shaped like the datasets of public serialization benchmarks
(an access log of 10,000 hits, a mesh of 25,000 faces of ``f32`` points,
500 saved game players), generated from a fixed seed::

    .venv/bin/python sdk-python/tools/record_datasets.py

The models are generated from ``bench/datasets/records.fxs``
into a temporary directory with ``python -m flexbuf gen``; the same values
are held as msgspec Structs of the same fields. Then 9 rounds time 3 calls
of every contender in turn (CPU time), and the medians per call are
printed with ``Model.decode`` against ``msgspec.msgpack`` decoding into
the Structs, and ``model.encode()`` against ``msgspec.json.encode`` and
``msgspec.msgpack.encode`` of the Structs: peer time / flexbuf time. Run
it on a quiet machine, twice, and quote it only when the runs agree.
"""

from __future__ import annotations

import gc
import importlib
import pathlib
import random
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from typing import Any, Callable, Optional

import msgspec

import flexbuf


class Ipv4S(msgspec.Struct):
    a: int
    b: int
    c: int
    d: int


class HitS(msgspec.Struct):
    address: Ipv4S
    identity: str
    userid: str
    date: str
    request: str
    code: int
    size: int


class AccessLogS(msgspec.Struct):
    hits: list[HitS]


class PointS(msgspec.Struct):
    x: float
    y: float
    z: float


class FaceS(msgspec.Struct):
    a: PointS
    b: PointS
    c: PointS
    normal: PointS


class MeshS(msgspec.Struct):
    faces: list[FaceS]


class SlotS(msgspec.Struct):
    count: int
    slot: int
    id: str


class AbilitiesS(msgspec.Struct):
    walk_speed: float
    fly_speed: float
    may_fly: bool
    flying: bool
    invulnerable: bool
    may_build: bool
    instabuild: bool


class CreatureS(msgspec.Struct):
    id: str
    pos: list[float]
    motion: list[float]
    rotation: list[float]
    fall_distance: float
    fire: int
    air: int
    on_ground: bool
    no_gravity: bool
    portal_cooldown: int
    uuid: list[int]
    custom_name: Optional[str]
    silent: bool
    tags: Optional[list[str]]


class RecipesS(msgspec.Struct):
    known: list[str]
    shown: list[str]
    gui_open: bool
    filtering: bool


class PlayerS(msgspec.Struct):
    mode: int
    previous_mode: int
    score: int
    dimension: str
    held_slot: int
    held: SlotS
    spawn: Optional[list[int]]
    sleep_timer: int
    food: list[float]
    xp_level: int
    xp_progress: float
    xp_seed: int
    inventory: list[SlotS]
    ender_chest: list[SlotS]
    abilities: AbilitiesS
    nether_entry: Optional[list[float]]
    mount: Optional[CreatureS]
    shoulder: Optional[CreatureS]
    seen_credits: bool
    recipes: RecipesS


class SaveDataS(msgspec.Struct):
    players: list[PlayerS]


def f32(x: float) -> float:
    """``x`` rounded to the nearest ``f32``, as an ``f32`` field holds it."""
    value: float = struct.unpack("<f", struct.pack("<f", x))[0]
    return value


def word(r: random.Random, n: int) -> str:
    """A word of ``n`` lowercase letters."""
    return "".join(chr(97 + r.randrange(26)) for _ in range(n))


def access_log(r: random.Random, n: int) -> AccessLogS:
    methods = ["GET", "POST", "PUT", "DELETE"]
    codes = [200, 200, 200, 304, 404, 500]
    hits = []
    for _ in range(n):
        user = word(r, 6)
        hits.append(
            HitS(
                address=Ipv4S(*(r.randrange(256) for _ in range(4))),
                identity=word(r, 8) if r.randrange(4) == 0 else "-",
                userid=user if r.randrange(3) == 0 else "-",
                date=f"{1 + r.randrange(28):02}/Oct/2026:{r.randrange(24):02}:"
                f"{r.randrange(60):02}:{r.randrange(60):02} +0000",
                request=f"{r.choice(methods)} /{word(r, 5)}/{word(r, 8)}.html HTTP/1.1",
                code=r.choice(codes),
                size=r.randrange(100_000_000),
            )
        )
    return AccessLogS(hits)


def mesh(r: random.Random, n: int) -> MeshS:
    def point() -> PointS:
        return PointS(*(f32(r.random() * 100 - 50) for _ in range(3)))

    return MeshS([FaceS(point(), point(), point(), point()) for _ in range(n)])


def save_data(r: random.Random, n: int) -> SaveDataS:
    ids = ["stone", "oak_planks", "iron_pickaxe", "bread", "torch", "diamond_sword"]

    def slot() -> SlotS:
        return SlotS(1 + r.randrange(64), r.randrange(36), "game:" + r.choice(ids))

    def creature() -> CreatureS:
        return CreatureS(
            id="game:" + word(r, 5),
            pos=[r.random() * 1e4, r.random() * 256, r.random() * 1e4],
            motion=[r.random() - 0.5 for _ in range(3)],
            rotation=[f32(r.random() * 360), f32(r.random() * 180 - 90)],
            fall_distance=f32(r.random() * 10),
            fire=r.randrange(400),
            air=300,
            on_ground=r.randrange(2) == 0,
            no_gravity=r.randrange(20) == 0,
            portal_cooldown=r.randrange(300),
            uuid=[r.randrange(1 << 32) for _ in range(4)],
            custom_name=word(r, 7) if r.randrange(3) == 0 else None,
            silent=r.randrange(10) == 0,
            tags=[word(r, 6) for _ in range(1 + r.randrange(3))] if r.randrange(4) == 0 else None,
        )

    players = []
    for _ in range(n):
        players.append(
            PlayerS(
                mode=r.randrange(4),
                previous_mode=r.randrange(4),
                score=r.randrange(1_000_000),
                dimension="game:overworld",
                held_slot=r.randrange(9),
                held=slot(),
                spawn=[r.randrange(20_000) - 10_000, r.randrange(256), r.randrange(20_000) - 10_000]
                if r.randrange(2) == 0
                else None,
                sleep_timer=r.randrange(100),
                food=[f32(r.random() * 4), f32(r.random() * 20), float(r.randrange(80))],
                xp_level=r.randrange(100),
                xp_progress=f32(r.random()),
                xp_seed=r.randrange(-(1 << 31), 1 << 31),
                inventory=[slot() for _ in range(r.randrange(36))],
                ender_chest=[slot() for _ in range(r.randrange(27))],
                abilities=AbilitiesS(
                    f32(0.1), f32(0.05), r.randrange(2) == 0, r.randrange(4) == 0,
                    r.randrange(10) == 0, True, r.randrange(10) == 0,
                ),
                nether_entry=[r.random() * 1e4, r.random() * 128, r.random() * 1e4]
                if r.randrange(3) == 0
                else None,
                mount=creature() if r.randrange(5) == 0 else None,
                shoulder=creature() if r.randrange(5) == 0 else None,
                seen_credits=r.randrange(2) == 0,
                recipes=RecipesS(
                    ["game:" + word(r, 8) for _ in range(r.randrange(30))],
                    ["game:" + word(r, 8) for _ in range(r.randrange(5))],
                    r.randrange(2) == 0,
                    r.randrange(2) == 0,
                ),
            )
        )
    return SaveDataS(players)


def time_block(call: Callable[[], Any], times: list[float]) -> None:
    """Appends the CPU time of one of 3 calls of ``call`` to ``times`` (ms)."""
    # Each block starts from an empty young generation, so that the
    # collections one contender's allocations trigger are not paid by the
    # next one.
    gc.collect()
    start = time.process_time()
    for _ in range(3):
        call()
    times.append((time.process_time() - start) / 3 * 1e3)


def main() -> None:
    root = pathlib.Path(__file__).resolve().parents[2]
    with tempfile.TemporaryDirectory() as out:
        subprocess.run(
            [sys.executable, "-m", "flexbuf", "gen", "--lang", "python", "-o", out,
             str(root / "bench/datasets/records.fxs")],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        sys.path.insert(0, out)
        models = importlib.import_module("records")
    # Each collection is built when it is measured and dropped after: what
    # else the process holds changes what Python's garbage collector costs
    # both sides (msgspec's decoded Structs that hold Structs are tracked).
    cases: list[tuple[str, Callable[[], msgspec.Struct], Any]] = [
        ("access_log", lambda: access_log(random.Random(1), 10_000), models.AccessLog),
        ("mesh", lambda: mesh(random.Random(2), 25_000), models.Mesh),
        ("save_data", lambda: save_data(random.Random(3), 500), models.SaveData),
    ]
    for name, make, model_type in cases:
        value = make()
        struct_type = type(value)
        # The model holds the same values: the Structs' fields through
        # flexbuf's generic encoding, read back as the model.
        model = model_type.decode(flexbuf.dumps(msgspec.to_builtins(value)))
        ours = model.encode()
        if model_type.decode(ours) != model:
            sys.exit(f"{name}: the model does not read back equal")
        packed = msgspec.msgpack.encode(value)
        decoder = msgspec.msgpack.Decoder(struct_type)
        if decoder.decode(packed) != value:
            sys.exit(f"{name}: msgspec does not read back equal")
        contenders: dict[str, Callable[[], Any]] = {
            "Model.decode": lambda: model_type.decode(ours),
            "msgspec.msgpack decode": lambda: decoder.decode(packed),
            "model.encode": lambda: model.encode(),
            "msgspec.json.encode": lambda: msgspec.json.encode(value),
            "msgspec.msgpack.encode": lambda: msgspec.msgpack.encode(value),
        }
        times: dict[str, list[float]] = {k: [] for k in contenders}
        for _ in range(9):
            for key, call in contenders.items():
                time_block(call, times[key])
        m = {k: statistics.median(v) for k, v in times.items()}

        def ratio(peer: str, mine: str) -> str:
            return f"{m[peer] / m[mine]:.2f}x"

        print(
            f"{name} ({len(ours)} bytes; msgpack {len(packed)}): "
            + ", ".join(f"{k} {v:.3f} ms" for k, v in m.items())
            + f" | decode vs msgspec.msgpack {ratio('msgspec.msgpack decode', 'Model.decode')};"
            + f" encode vs msgspec.json {ratio('msgspec.json.encode', 'model.encode')},"
            + f" vs msgspec.msgpack {ratio('msgspec.msgpack.encode', 'model.encode')}"
        )


if __name__ == "__main__":
    main()
