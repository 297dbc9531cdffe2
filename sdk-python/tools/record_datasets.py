"""Times the generated classes against msgspec Structs on record
collections shaped like the datasets of public serialization benchmarks
(an access log of 10,000 hits, a mesh of 25,000 faces of ``f32`` points,
500 saved game players, 1,000 state updates of a multiplayer game with
enums, unions and bytes) and 5,000 metric samples with labels and
counters under string keys, generated from a fixed seed::

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

import enum
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
from types import ModuleType
from typing import Any, Callable, Optional, Union

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


class UnitS(enum.IntEnum):
    CRUISER = 0
    DESTROYER = 1
    SUBMARINE = 2
    CARRIER = 3
    TORPEDO = 4
    MISSILE = 5
    MINE = 6
    PLANE = 7
    BARREL = 8
    CRATE = 9
    COIN = 10
    BUOY = 11


class SteeringS(msgspec.Struct):
    heading: float
    speed: float


class PoseS(msgspec.Struct):
    altitude: int
    angle: int
    position: tuple[float, float]
    velocity: int


class ContactS(msgspec.Struct):
    damage: int
    id: int
    unit: Optional[UnitS]
    steering: Optional[SteeringS]
    owner: Optional[int]
    reloads: list[bool]
    pose: PoseS
    turrets: list[int]


# The union's variants, tagged as msgspec tags a union of Structs.
class JoinedS(msgspec.Struct, tag="Joined"):
    player: int
    name: str


class SankS(msgspec.Struct, tag="Sank"):
    id: int


class ChatS(msgspec.Struct, tag="Chat"):
    sender: int
    text: str


class TickS(msgspec.Struct, tag="Tick"):
    pass


class TerrainS(msgspec.Struct):
    chunk: tuple[int, int]
    data: bytes


class UpdateS(msgspec.Struct):
    contacts: list[ContactS]
    events: list[Union[JoinedS, SankS, ChatS, TickS]]
    score: int
    world_radius: float
    terrain: list[TerrainS]


class GameUpdatesS(msgspec.Struct):
    updates: list[UpdateS]


class SampleS(msgspec.Struct):
    name: str
    labels: dict[str, str]
    counters: dict[str, int]
    value: float
    timestamp: int


class SamplesS(msgspec.Struct):
    samples: list[SampleS]


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


def game_updates(r: random.Random, n: int, models: ModuleType) -> tuple[GameUpdatesS, Any]:
    """``n`` updates as msgspec Structs and, with the same values, as the
    generated model (built directly: msgspec tags a union's variants
    inside the variant, where FlexBuffers names it by a one-entry map)."""
    structs, model = [], []
    for _ in range(n):
        contacts_s, contacts_m = [], []
        for _ in range(r.randrange(40)):
            unit = None if r.randrange(10) == 0 else r.randrange(12)
            steer = (f32(r.random() * 6.283), f32(r.random() * 20)) if r.randrange(2) == 0 else None
            owner = r.randrange(500) if r.randrange(2) == 0 else None
            reloads = [r.randrange(2) == 0 for _ in range(r.randrange(6))]
            pose = (r.randrange(256) - 128, r.randrange(65536),
                    (f32(r.random() * 2e3 - 1e3), f32(r.random() * 2e3 - 1e3)), r.randrange(2000) - 1000)
            turrets = [r.randrange(65536) for _ in range(r.randrange(4))]
            damage, ident = r.randrange(256), r.randrange(1 << 32)
            contacts_s.append(ContactS(
                damage, ident, None if unit is None else UnitS(unit),
                None if steer is None else SteeringS(*steer), owner, reloads, PoseS(*pose), turrets,
            ))
            contacts_m.append(models.Contact(
                damage=damage, id=ident, unit=None if unit is None else models.Unit(unit),
                steering=None if steer is None else models.Steering(heading=steer[0], speed=steer[1]),
                owner=owner, reloads=reloads, turrets=turrets,
                pose=models.Pose(altitude=pose[0], angle=pose[1], position=pose[2], velocity=pose[3]),
            ))
        events_s: list[Union[JoinedS, SankS, ChatS, TickS]] = []
        events_m = []
        for _ in range(r.randrange(4)):
            kind = r.randrange(4)
            if kind == 0:
                player, name = r.randrange(500), word(r, 8)
                events_s.append(JoinedS(player, name))
                events_m.append(models.EventJoined(models.Joined(player=player, name=name)))
            elif kind == 1:
                sunk = r.randrange(1 << 32)
                events_s.append(SankS(sunk))
                events_m.append(models.EventSank(sunk))
            elif kind == 2:
                sender, text = r.randrange(500), f"{word(r, 4)} {word(r, 6)} {word(r, 3)}"
                events_s.append(ChatS(sender, text))
                events_m.append(models.EventChat(models.Chat(from_=sender, text=text)))
            else:
                events_s.append(TickS())
                events_m.append(models.EventTick(models.Tick()))
        terrain_s, terrain_m = [], []
        for _ in range(r.randrange(3)):
            chunk = (r.randrange(16) - 8, r.randrange(16) - 8)
            data = bytes(r.randrange(256) for _ in range(64 + r.randrange(128)))
            terrain_s.append(TerrainS(chunk, data))
            terrain_m.append(models.Terrain(chunk=chunk, data=data))
        score, radius = r.randrange(100_000), f32(1000 + r.random() * 500)
        structs.append(UpdateS(contacts_s, events_s, score, radius, terrain_s))
        model.append(models.Update(contacts=contacts_m, events=events_m, score=score, world_radius=radius,
                                   terrain=terrain_m))
    return GameUpdatesS(structs), models.GameUpdates(updates=model)


LABEL_KEYS = ["env", "region", "zone", "service", "instance", "team", "version", "path"]
COUNTER_KEYS = ["requests", "errors", "retries", "bytes_in", "bytes_out", "p50_us", "p99_us"]


def samples(r: random.Random, n: int) -> SamplesS:
    """``n`` metric samples: each a subset of the label and counter names,
    in the vocabulary's order (not key order)."""
    out = []
    for i in range(n):
        labels = {k: word(r, 3 + r.randrange(8)) for k in LABEL_KEYS if r.randrange(3) != 0}
        counters = {k: r.randrange(1 << 40) for k in COUNTER_KEYS if r.randrange(2) == 0}
        name = f"svc.{word(r, 6)}.{word(r, 4)}"
        out.append(SampleS(name, labels, counters, r.random() * 1e3, 1_700_000_000_000 + 15_000 * i))
    return SamplesS(out)


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
    def via_dumps(value: msgspec.Struct, model_type: Any) -> tuple[msgspec.Struct, Any]:
        # The model holds the same values: the Structs' fields through
        # flexbuf's generic encoding, read back as the model.
        return value, model_type.decode(flexbuf.dumps(msgspec.to_builtins(value)))

    cases: list[tuple[str, Callable[[], tuple[msgspec.Struct, Any]], Any]] = [
        ("access_log", lambda: via_dumps(access_log(random.Random(1), 10_000), models.AccessLog), models.AccessLog),
        ("mesh", lambda: via_dumps(mesh(random.Random(2), 25_000), models.Mesh), models.Mesh),
        ("save_data", lambda: via_dumps(save_data(random.Random(3), 500), models.SaveData), models.SaveData),
        ("game_updates", lambda: game_updates(random.Random(4), 1_000, models), models.GameUpdates),
        ("samples", lambda: via_dumps(samples(random.Random(5), 5_000), models.Samples), models.Samples),
    ]
    for name, make, model_type in cases:
        value, model = make()
        struct_type = type(value)
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
