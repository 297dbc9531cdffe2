// Generated TypeScript coders (test/gen/out, made by `cargo xtask test`):
// byte identity with the Rust generated encoders on every fixture, and the
// data defects of the previous implementation (DESIGN.md) as regressions.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import * as fb from "../dist/index.js";
import { FIXTURE_ROOTS } from "./typed_harness.mjs";

const gen = new URL("./gen/out/", import.meta.url);
const refs = new URL("./gen/ref/", import.meta.url);
assert.ok(existsSync(gen), "generated coders missing: run `cargo xtask test` (it generates them)");
const { collideKeyHashes } = await import("../dist/builder.js");
const defects = await import(new URL("defects.js", gen));
const shop = await import(new URL("shop.js", gen));
const arrays = await import(new URL("arrays.js", gen));

for (const [fixture, type] of Object.entries(FIXTURE_ROOTS)) {
  test(`typed encoder is byte-identical to the Rust one: ${fixture}`, async () => {
    const m = await import(new URL(`${fixture}.js`, gen));
    const text = readFileSync(new URL(`../../conformance/fixtures/${fixture}.json`, import.meta.url), "utf8");
    const value = m[`decode${type}`](fb.fromJSON(text)); // keyed path (generic layout)
    const ours = m[`encode${type}`](value);
    const rust = new Uint8Array(readFileSync(new URL(`${fixture}.bin`, refs)));
    assert.equal(Buffer.from(ours).toString("hex"), Buffer.from(rust).toString("hex"));
    assert.deepEqual(m[`decode${type}`](ours), value, "positional decode gives the same value");
    assert.deepEqual(m[`decode${type}`](ours, { keyedOnly: true }), value, "keyed decode gives the same value");
    const copy = new ArrayBuffer(ours.length);
    new Uint8Array(copy).set(ours);
    assert.deepEqual(m[`decode${type}`](copy), value, "decode of the same bytes in an ArrayBuffer");
    assert.deepEqual(m[`decode${type}`](new DataView(copy)), value, "decode of the same bytes in a DataView");
  });
}

test("defect: explicit null is not the default", () => {
  const p = defects.decodeProfile(fb.encode({ id: 1, nickname: null, age: null }));
  assert.equal(p.nickname, null);
  assert.equal(p.age, null);
  const q = defects.decodeProfile(fb.encode({ id: 1 }));
  assert.equal(q.nickname, "anon");
  assert.equal(q.age, 18);
  assert.equal(q.note, null);
  assert.deepEqual(defects.decodeProfile(defects.encodeProfile(p)), p);
});

test("defect: a missing required field is an error naming it, never the neighbour's value", () => {
  // {zip} alone: positional decode would read "Zip" as street.
  for (const bytes of [fb.encode({ zip: "Zip" }), fb.encode([{ street: "S", zip: "Z" }, { zip: "Zip" }])]) {
    assert.throws(() => {
      const v = fb.decode(bytes);
      if (Array.isArray(v)) {
        const r = fb.root(bytes).index(1);
        defects.decodeAddressFrom(new fb.DecodeContext(bytes), r.pos, r.slotWidth, (r.type << 2) | 0);
      } else defects.decodeAddress(bytes);
    }, (e) => e.kind === "MissingField" && fb.formatPath(e.path) === "$.street");
  }
});

test("layout mismatch falls back to keys: a Contact read from an Address never takes its fields", () => {
  const c = defects.decodeContact(defects.encodeAddress({ street: "Main", zip: "12345" }));
  assert.deepEqual(c, { email: "", phone: "none" });
});

test("null in a non-optional field and out-of-range integers name their path", () => {
  assert.throws(() => defects.decodeAddress(fb.encode({ street: null, zip: "z" })), (e) => e.kind === "UnexpectedNull" && fb.formatPath(e.path) === "$.street");
  assert.throws(() => defects.decodeRanges(fb.encode({ u8v: 300 })), (e) => e.kind === "OutOfRange" && fb.formatPath(e.path) === "$.u8v");
  assert.throws(() => defects.decodeCanvas(fb.encode({ color: 3 })), (e) => e.kind === "UnknownEnumValue" && fb.formatPath(e.path) === "$.color");
});

test("empty message and all-default message decode from {}", () => {
  assert.deepEqual(defects.decodeEmpty(fb.encode({})), {});
  const s = defects.decodeSettings(fb.encode({}));
  assert.equal(s.theme, "light");
  assert.equal(s.volume, 5);
  assert.deepEqual(s.tags, []);
});

test("unions, maps, unknown fields and views", () => {
  const canvas = {
    color: defects.Color.Red, level: defects.Level.Low, tint: null, palette: [defects.Color.Blue],
    shape: { kind: "Circle", value: { radius: 2.5 } }, shapes: [{ kind: "Label", value: "x" }],
    layers: { fg: { kind: "Square", value: { side: 3 } } },
  };
  const bytes = defects.encodeCanvas(canvas);
  assert.deepEqual(defects.decodeCanvas(bytes), canvas);
  const withExtra = fb.encode({ street: "s", zip: "z", extra: [1, 2, 3] });
  assert.deepEqual(defects.decodeAddress(withExtra), { street: "s", zip: "z" });
  const addr = { street: "Main", zip: "1", city: "X", note: null, floor: 3, geo: { lat: 1, lon: 2 }, tags: ["a"], attrs: { b: 2, a: 1 }, display: "D" };
  const view = shop.AddressView.fromBytes(shop.encodeAddress(addr));
  assert.equal(view.street, "Main");
  assert.equal(view.note, null);
  assert.equal(view.floor, 3);
  assert.equal(view.geo.lat, 1);
  assert.equal(view.tags.get(0).asString(), "a");
  assert.equal(view.display, "D");
});

test("hostile bytes fail with typed errors, not crashes", () => {
  const good = defects.encodeOrder({ id: 1, items: [], bySku: {}, sellers: {}, matrix: [[1]], notes: ["n"], label: "L" });
  for (let i = 0; i < good.length; i++) {
    for (const x of [0, 0xff, 0x7f]) {
      const bad = good.slice();
      bad[i] = x;
      try {
        defects.decodeOrder(bad);
      } catch (e) {
        assert.ok(e instanceof fb.FlexError, `byte ${i}=${x}: ${e}`);
      }
    }
  }
});

const RUST_KEY_BLOCK_BYTES =
  "610001030101010104610062000205040201020203040409010205060404620001030101010404042116100624242424082801";

test("a type's keys are one block, without the key pool; equal key lists share one keys vector", () => {
  const count = (bytes, text) => {
    const needle = Buffer.from(text + "\0");
    let n = 0;
    for (let i = Buffer.from(bytes).indexOf(needle); i >= 0; i = Buffer.from(bytes).indexOf(needle, i + 1)) n++;
    return n;
  };
  const b = new fb.Builder({ share: fb.Share.Keys, dedupKeyVectors: true });
  const cx = new fb.EncodeContext();
  b.startVector();
  b.startMap(); b.key("a"); b.int(1); b.endMap(); // "a" enters the key pool
  const before = b.length;
  const ab = fb.keySet(["a", "b"]);
  const kv = cx.keyVector(b, ab);
  assert.equal(cx.keyVector(b, ab), kv, "once per type per buffer");
  assert.equal(cx.keyVector(b, fb.keySet(["a", "b"])), kv, "same keys, same keys vector");
  b.startMap(); b.int(2); b.int(3); b.endMapWithKeys(kv);
  b.startMap(); b.key("b"); b.int(4); b.endMap(); // not served from the block either
  b.endVector();
  const bytes = b.finish();
  // The block is written as is where the buffer ended: "a" is not taken from the pool.
  assert.equal(Buffer.from(bytes.subarray(before, before + 4)).toString("latin1"), "a\0b\0");
  assert.equal(count(bytes, "a"), 2);
  assert.equal(count(bytes, "b"), 2);
  assert.deepEqual(fb.decode(bytes), [{ a: 1 }, { a: 2, b: 3 }, { b: 4 }]);
  // The same calls through the Rust core (EncodeContext::key_vector with a second type id for the
  // same keys) give these bytes; Kotlin's CoreTest pins them too.
  const b2 = new fb.Builder({ share: fb.Share.Keys, dedupKeyVectors: true });
  const cx2 = new fb.EncodeContext();
  b2.startVector();
  b2.startMap(); b2.key("a"); b2.int(1); b2.endMap();
  const k1 = cx2.keyVector(b2, fb.keySet(["a", "b"]));
  const k2 = cx2.keyVector(b2, fb.keySet(["a", "b"]));
  b2.startMap(); b2.int(2); b2.int(3); b2.endMapWithKeys(k1);
  b2.startMap(); b2.int(5); b2.int(6); b2.endMapWithKeys(k2);
  b2.startMap(); b2.key("b"); b2.int(4); b2.endMap();
  b2.endVector();
  assert.equal(Buffer.from(b2.finish()).toString("hex"), RUST_KEY_BLOCK_BYTES);
  assert.throws(() => new fb.KeyLayout(["b", "a"]), /sorted/);
  assert.throws(() => new fb.KeyLayout(["a\0"]), /NUL/);
});

test("dynamic maps with equal key sets share one keys vector, and no other map does", () => {
  let seed = 77;
  const r = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
  const universe = ["a", "b", "bb", "c", "\u00e9", "emoji\u{1f600}", "z", "long key of some length"];
  const cases = [[fb.Share.Keys, false], [fb.Share.Keys | fb.Share.Strings, false], [fb.Share.Keys, true]];
  for (const [share, collide] of cases) {
    // Every key set in one hash bucket: found by comparing positions alone.
    collideKeyHashes(collide);
    const b = new fb.Builder({ share, dedupKeyVectors: true });
    for (let round = 0; round < 3; round++) {
      // Reused: what one buffer recorded must not serve the next.
      b.clear();
      const maps = [];
      b.startVector();
      for (let m = 0; m < 400; m++) {
        const keys = universe.filter(() => r() < 0.35).sort((x, y) => (Buffer.compare(Buffer.from(x), Buffer.from(y))));
        const obj = {};
        b.startMap();
        for (const k of keys) {
          b.key(k);
          b.int(m);
          obj[k] = m;
        }
        b.endMap();
        maps.push(obj);
      }
      b.endVector();
      const bytes = b.finish();
      assert.deepEqual(fb.decode(bytes), maps, `round ${round}`);
      const v = fb.root(bytes).asVector();
      const bySet = new Map();
      const sets = new Set();
      for (let i = 0; i < v.length; i++) {
        const set = Object.keys(maps[i]).sort().join("\u0001");
        sets.add(set);
        if (maps[i] && Object.keys(maps[i]).length === 0) continue;
        const at = v.get(i).asMap().keysOffset;
        if (bySet.has(set)) assert.equal(at, bySet.get(set), `map ${i} shares its set's keys vector`);
        else bySet.set(set, at);
      }
      const offsets = new Set(bySet.values());
      assert.equal(offsets.size, bySet.size, "one keys vector per key set");
      assert.ok(bySet.size > 30, `${bySet.size} key sets`);
    }
  }
  collideKeyHashes(false);
});

test("dictionary keys found again from an earlier buffer: changed bytes at the same places are read as they are", async () => {
  const { dictKeysMemo } = await import("../dist/typed.js");
  const addr = (attrs) => ({ street: "Main", zip: "1", city: "X", note: null, floor: 3, geo: { lat: 1, lon: 2 }, tags: ["a"], attrs, display: "D" });
  const first = shop.encodeAddress(addr({ alpha: 1, beta: 2, "gam\u00e9": 3, "\u{1f600}": 4 }));
  const keysAt = Buffer.from(first).indexOf(Buffer.from("alpha\0"));
  const keysEnd = Buffer.from(first).indexOf(Buffer.from("\u{1f600}\0")) + 5;
  const outcome = (bytes) => {
    try {
      return shop.decodeAddress(bytes);
    } catch (e) {
      assert.ok(e instanceof fb.FlexError, String(e));
      return `${e.kind} ${e.offset}`;
    }
  };
  let n = 0;
  let changed = 0;
  try {
    for (let i = keysAt; i < keysEnd; i++) {
      for (const x of [0x00, 0x41, 0x61, 0x62, 0x7a, 0x80, 0xc3, 0xff]) {
        if (first[i] === x) continue;
        const bad = first.slice();
        bad[i] = x;
        // The oracle: every key read and checked afresh.
        dictKeysMemo(false);
        const want = outcome(bad);
        // The memo primed with the first buffer's key set, at the same places.
        dictKeysMemo(true);
        assert.deepEqual(outcome(first).attrs, { alpha: 1, beta: 2, "gam\u00e9": 3, "\u{1f600}": 4 });
        assert.deepEqual(outcome(bad), want, `byte ${i} = ${x}`);
        if (typeof want === "string" || JSON.stringify(want.attrs) !== JSON.stringify(outcome(first).attrs)) changed++;
        n++;
      }
    }
  } finally {
    dictKeysMemo(true);
  }
  assert.ok(n > 100 && changed > 100, `${n} mutations, ${changed} with other keys or an error`);
  // Every key set in one slot: a dictionary whose keys lie elsewhere is not
  // taken for the one recorded, even where the recorded places hold its bytes.
  const dictAt = (bytes, index) => {
    const c = new fb.DecodeContext(bytes);
    let [p, w, t] = c.root();
    if (index !== undefined) {
      const d = c.vector(p, w, t);
      [p, w, t] = [d + index * c.w, c.w, c.type(d, c.w, c.c, c.e, index)];
    }
    const d = c.map(p, w, t);
    const n = c.c;
    c.layout(d, c.w, n, fb.NO_KEYS);
    return Array.from({ length: n }, (_, i) => c.key(c.ka, c.kw, i));
  };
  const build = (maps) => {
    const b = new fb.Builder();
    if (maps.length > 1) b.startVector();
    for (const keys of maps) {
      b.startMap();
      for (const k of keys) {
        b.key(k);
        b.int(1);
      }
      b.endMap();
    }
    if (maps.length > 1) b.endVector();
    return b.finish().slice();
  };
  const one = build([["a", "b"]]);
  const two = build([["a", "b"], ["x", "y"]]);
  assert.deepEqual([...two.subarray(0, 4)], [...one.subarray(0, 4)], "the keys a and b lie at the same places in both");
  try {
    dictKeysMemo(true, true);
    assert.deepEqual(dictAt(one), ["a", "b"]);
    assert.deepEqual(dictAt(two, 1), ["x", "y"]);
    assert.deepEqual(dictAt(two, 0), ["a", "b"]);
  } finally {
    dictKeysMemo(true);
  }
  // A dictionary seen again in a later buffer reads its own keys, and many
  // one-off key sets (more than the memo records per decode) do not disturb it.
  const sets = Array.from({ length: 200 }, (_, i) => ({ [`k${i}`]: i, [`k${i + 1}x`]: i + 1 }));
  for (const attrs of [...sets, ...sets]) assert.deepEqual(shop.decodeAddress(shop.encodeAddress(addr(attrs))).attrs, attrs);
});

test("arrays: fixed vectors for 2 to 4 numbers, plain arrays when decoded, lengths checked both ways", () => {
  const body = { pos: [1.5, 2, 3], uuid: [1, 2, 3, 4], span: [-1, 1], quat: [0, 0, 0, 1], level: [9],
    matrix: [1, 2, 3, 4, 5, 6, 7, 8, 9], flags: [true, false], tint: null, big: [1, 2], ubig: [3, 4, 5], small: [-1, 0, 1] };
  const bytes = arrays.encodeBody(body);
  const m = fb.root(bytes).asMap();
  assert.equal(fb.typeName(m.get("pos").type), "vector_float3");
  assert.equal(fb.typeName(m.get("matrix").type), "vector_float");
  assert.equal(fb.typeName(m.get("flags").type), "vector_bool");
  const back = arrays.decodeBody(bytes);
  assert.ok(Array.isArray(back.pos));
  assert.deepEqual(back.uuid, [1, 2, 3, 4]);
  assert.deepEqual(arrays.decodeBody(fb.encode({ uuid: [1, 2, 3, 4] })).pos, [0, 0, 0]);
  assert.throws(() => arrays.decodeBody(fb.encode({ uuid: [1, 2, 3] })),
    (e) => e.kind === "ArrayLength" && fb.formatPath(e.path) === "$.uuid");
  assert.throws(() => arrays.encodeBody({ ...body, pos: [1, 2] }), (e) => e.kind === "ArrayLength");
});
