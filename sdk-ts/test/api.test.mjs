// The public API: encode/decode mapping, integers, budgets, strings, errors,
// and the data defects listed in DESIGN.md.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fb from "../dist/index.js";

const hex = (b) => Buffer.from(b).toString("hex");

test("encode/decode round-trips plain values", () => {
  const v = { name: "Ada", born: 1815, ratio: 0.5, ok: true, none: null, tags: ["a", "é", "😀"], nested: { x: [1, [2, {}]] }, blob: new Uint8Array([0, 255]) };
  const back = fb.decode(fb.encode(v));
  assert.deepEqual(back, { blob: new Uint8Array([0, 255]), born: 1815, name: "Ada", nested: { x: [1, [2, {}]] }, none: null, ok: true, ratio: 0.5, tags: ["a", "é", "😀"] });
});

test("numbers: safe integers are ints, others doubles; 64-bit ints come back as bigint when unsafe", () => {
  const r = fb.root(fb.encode([1, 1.5, -0, 2 ** 60, 9007199254740993n, -(2n ** 63n), 2n ** 64n - 1n]));
  const v = r.asVector();
  assert.deepEqual([...v].map((x) => x.typeName), ["int", "float", "float", "float", "int", "int", "uint"]);
  const d = fb.decode(fb.encode([9007199254740991, 9007199254740993n, 2n ** 64n - 1n]));
  assert.deepEqual(d, [9007199254740991, 9007199254740993n, 18446744073709551615n]);
  assert.deepEqual(fb.decode(fb.encode([1, 2n ** 62n]), { int64: "bigint" }), [1n, 2n ** 62n]);
  assert.deepEqual(fb.decode(fb.encode([2n ** 62n]), { int64: "number" }), [2 ** 62]);
  assert.throws(() => fb.encode(2n ** 64n), (e) => e instanceof fb.FlexError && e.kind === "OutOfRange");
});

test("8-byte integers on both sides of the 32-bit limits read back exactly (decode, the lazy reader, the verifier)", () => {
  // A float among them makes the vector (and so every slot) 8 bytes wide; the
  // readers take the 32-bit shortcut only when the high word allows it.
  const ints = [0, 1, -1, 2 ** 31 - 1, 2 ** 31, -(2 ** 31), -(2 ** 31) - 1, 2 ** 32 - 1, 2 ** 32, -(2 ** 32), -(2 ** 32) - 1,
    2 ** 32 + 1, 2 ** 53 - 1, -(2 ** 53 - 1), 0x1fffff * 2 ** 32, -(0x1fffff * 2 ** 32) - 7];
  const bytes = fb.encode([0.5, ...ints]);
  const v = fb.root(bytes).asVector();
  assert.equal(v.get(1).width, 8);
  assert.deepEqual(fb.decode(bytes), [0.5, ...ints]);
  assert.deepEqual(ints.map((_, i) => v.get(i + 1).asInt()), ints);
  assert.deepEqual(fb.decode(bytes, { int64: "bigint" }).slice(1), ints.map((x) => BigInt(x)));
  assert.equal(fb.verify(bytes), bytes);
  // Unsigned ones, typed and at 8 bytes.
  const uints = [0, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 53 - 1];
  const b = new fb.Builder();
  b.typedVector(uints, "u64");
  const ub = b.finish();
  assert.deepEqual(fb.decode(ub), uints);
});

test("strings are encoded in one pass, including when the byte length needs a wider size prefix", () => {
  for (const s of ["", "a", "é".repeat(100), "😀".repeat(40), "x".repeat(255), "é".repeat(128), "€".repeat(22000), "\u0000inner"]) {
    const bytes = fb.encode(s);
    assert.equal(fb.decode(bytes), s);
    const b = new fb.Builder();
    b.string(s);
    assert.equal(hex(b.finish()), hex(bytes));
    assert.doesNotThrow(() => fb.verify(bytes));
  }
});

test("JSON: integers stay exact, floats keep their form, keys are sorted", () => {
  const bytes = fb.fromJSON('{"b":[1,2.5,"x",3.0,-0.0,1e300,18446744073709551615],"a":null}');
  assert.equal(fb.toJSON(bytes), '{"a":null,"b":[1,2.5,"x",3.0,-0.0,1e300,18446744073709551615]}');
  assert.equal(fb.toJSON(fb.encode({ k: [1e-7, 1e16, 123.0] })), '{"k":[1e-7,1e16,123]}');
  assert.throws(() => fb.fromJSON('{"a":1,"a":2}'), (e) => e.kind === "Json" && /duplicate key/.test(e.message));
  assert.throws(() => fb.toJSON(fb.encode(NaN)), (e) => e.kind === "NonFiniteFloat");
  assert.equal(fb.toJSON(fb.encode([NaN]), { nonFinite: "null" }), "[null]");
  assert.equal(fb.toJSON(fb.encode({ a: [1] }), { pretty: true }), '{\n  "a": [\n    1\n  ]\n}');
});

test("decode is checked and bounded: DAG bombs hit the budget, cycles and depth are errors", () => {
  const b = new fb.Builder({ share: fb.Share.None });
  for (let i = 0; i < 40; i++) b.startVector();
  b.string("leaf");
  for (let i = 0; i < 40; i++) {
    b.reuseValue(b.lastValue());
    b.endVector();
  }
  const bomb = b.finish();
  assert.ok(bomb.length < 1000);
  fb.verify(bomb);
  assert.throws(() => fb.decode(bomb), (e) => e.kind === "BudgetExceeded");
  assert.throws(() => fb.toJSON(bomb), (e) => e.kind === "BudgetExceeded");
  let deep = [];
  for (let i = 0; i < 70; i++) deep = [deep];
  assert.throws(() => fb.encode(deep), (e) => e.kind === "DepthLimit");
  const cyclic = {};
  cyclic.self = cyclic;
  assert.throws(() => fb.encode(cyclic), (e) => e.kind === "DepthLimit");
  for (const bad of [[], [1], [0xff, 0xff, 0xff], [1, 4, 3]]) {
    assert.throws(() => fb.decode(new Uint8Array(bad)), fb.FlexError);
  }
});

test("defect: a valid empty map verifies and decodes (as root, element and value)", () => {
  for (const v of [{}, [{}], { a: {} }]) {
    const bytes = fb.encode(v);
    fb.verify(bytes);
    assert.deepEqual(fb.decode(bytes), v);
  }
});

test("defect: equal content reads back equal regardless of property order", () => {
  const x = fb.encode({ a: 1, b: [2] });
  const y = fb.encode({ b: [2], a: 1 });
  assert.deepEqual(fb.decode(x), fb.decode(y));
  assert.equal(fb.toJSON(x), fb.toJSON(y));
});

test("keys sort by UTF-8 bytes, not UTF-16 code units", () => {
  const bytes = fb.encode({ "\uffff": 1, "😀": 2, z: 3 });
  assert.deepEqual(Object.keys(fb.decode(bytes)), ["z", "\uffff", "😀"]);
  fb.verify(bytes);
  assert.equal(fb.root(bytes).get("😀").asInt(), 2);
});

test("__proto__ keys decode as own properties", () => {
  const bytes = fb.fromJSON('{"__proto__":{"polluted":1}}');
  const v = fb.decode(bytes);
  assert.equal(Object.getPrototypeOf(v), Object.prototype);
  assert.deepEqual(Object.keys(v), ["__proto__"]);
  assert.equal({}.polluted, undefined);
});

test("builder misuse is reported, sticky until clear, and capacity is released", () => {
  const b = new fb.Builder({ maxRetainedCapacity: 4096 });
  b.startMap();
  b.key("x"); b.int(1);
  b.key("x"); b.int(2);
  assert.throws(() => b.endMap(), (e) => e.kind === "Builder" && /duplicate key/.test(e.message));
  assert.throws(() => b.finish(), fb.FlexError);
  b.clear();
  b.blob(new Uint8Array(1 << 20));
  b.finish();
  assert.ok(b.capacity >= 1 << 20);
  b.clear();
  assert.ok(b.capacity <= 4096);
  b.int(5);
  assert.equal(hex(b.finish()), "050401");
});

test("clear() drops a value stack grown past maxRetainedCapacity, and keeps a small one", () => {
  const b = new fb.Builder({ maxRetainedCapacity: 64 * 1024 });
  b.startVector();
  for (let i = 0; i < 100_000; i++) b.int(i);
  b.endVector();
  b.finish();
  assert.ok(b.scratchCapacity > 10 * 64 * 1024, `grew to ${b.scratchCapacity}`);
  b.clear();
  assert.ok(b.scratchCapacity <= 64 * 1024, `kept ${b.scratchCapacity}`);
  b.startVector(); b.string("x"); b.int(-3); b.endVector();
  assert.deepEqual(fb.decode(b.finish()), ["x", -3]);
  b.clear();
  b.startVector();
  for (let i = 0; i < 1_000; i++) b.int(i);
  b.endVector();
  b.finish();
  const kept = b.scratchCapacity;
  b.clear();
  assert.equal(b.scratchCapacity, kept);
});

test("a buffer dropped by clear() grows back in one step, once", () => {
  const b = new fb.Builder({ maxRetainedCapacity: 4096 });
  const big = new Uint8Array(3_000_000).fill(7);
  b.blob(big);
  const first = b.finish();
  b.clear();
  assert.ok(b.capacity <= 4096, `kept ${b.capacity}`);
  // The next buffer that outgrows the initial capacity goes straight to the
  // last buffer's size, and its bytes are what a fresh builder writes.
  b.blob(new Uint8Array(10_000).fill(9));
  assert.ok(b.capacity >= first.length, `grew to ${b.capacity}`);
  const small = b.finish();
  const fresh = new fb.Builder();
  fresh.blob(new Uint8Array(10_000).fill(9));
  assert.deepEqual(small, fresh.finish());
  b.clear();
  // Cleared twice with nothing written in between: the last length stays that of the small buffer.
  b.clear();
  assert.ok(b.capacity <= 4096, `kept ${b.capacity}`);
  b.blob(new Uint8Array(10_000));
  assert.ok(b.capacity < 64 * 1024, `grew to ${b.capacity}`);
  b.finish();
  b.clear();
  b.blob(big);
  assert.deepEqual(b.finish(), first);
  b.clear();
  // After a huge buffer the next small one grows at once to 16 MiB at most.
  b.blob(new Uint8Array(40 << 20));
  b.finish();
  b.clear();
  b.blob(new Uint8Array(10_000));
  assert.equal(b.capacity, 1 << 24);
});

test("the builders encode() and encodeX() reuse keep a few megabytes while payloads fill them", async () => {
  const { sharedBuilderOptions } = await import("../dist/builder.js");
  const b = new fb.Builder(sharedBuilderOptions());
  const payload = { rows: Array.from({ length: 30_000 }, (_, i) => ({ id: i, name: `row ${i}`, score: i / 7 })) };
  fb.pushValue(b, payload);
  const bytes = b.finish();
  assert.ok(bytes.length > 1 << 20, `${bytes.length} bytes`);
  const grown = b.capacity;
  b.clear();
  // Kept, also through a second clear with nothing written (encode() clears before and after).
  b.clear();
  assert.equal(b.capacity, grown);
  fb.pushValue(b, payload);
  assert.deepEqual(b.finish(), bytes);
  b.clear();
  assert.equal(b.capacity, grown);
  // A payload using less than an eighth of it lets it go.
  fb.pushValue(b, { small: [1, 2, 3] });
  assert.deepEqual(fb.decode(b.finish()), { small: [1, 2, 3] });
  b.clear();
  assert.ok(b.capacity <= 4096, `kept ${b.capacity}`);
  // Past 8 MiB nothing is kept.
  b.blob(new Uint8Array(9 << 20));
  b.finish();
  b.clear();
  assert.ok(b.capacity <= 4096, `kept ${b.capacity}`);
  assert.deepEqual(fb.decode(fb.encode(payload)), fb.decode(bytes));
});

test("reader: zero-copy views with checked access", () => {
  const bytes = fb.encode({ blob: new Uint8Array([1, 2, 3]), list: [10, "x"] });
  const r = fb.root(bytes);
  const blob = r.get("blob").asBlob();
  assert.equal(blob.buffer, bytes.buffer, "blob is a view, not a copy");
  assert.equal(r.get("list").index(1).asString(), "x");
  assert.throws(() => r.get("nope"), (e) => e.kind === "KeyNotFound");
  assert.throws(() => r.get("list").index(5), (e) => e.kind === "IndexOutOfBounds");
  assert.throws(() => r.get("list").asMap(), (e) => e.kind === "TypeMismatch");
});

test("encode: the remembered key orders stay right when wide shapes churn past the cache's budget", () => {
  const sortedCopy = (o) => Object.fromEntries(Object.keys(o).sort().map((k) => [k, o[k]]));
  // 400 shapes of 120 keys (48,000 names, past the cache's 16,384) sharing first keys, then each again.
  const shapes = Array.from({ length: 400 }, (_, s) =>
    Object.fromEntries(Array.from({ length: 120 }, (_, i) => [i === 0 ? `first${s % 3}` : `k${(i * 53 + s) % 997}_${s % 7}`, i])),
  );
  for (let round = 0; round < 2; round++) {
    for (const o of shapes) {
      assert.deepEqual(Buffer.from(fb.encode(o)), Buffer.from(fb.encode(sortedCopy(o))));
    }
  }
});

test("typed arrays encode as typed vectors", () => {
  const bytes = fb.encode({ f: new Float64Array([1.5, 2]), i: new Int32Array([1, -300]) });
  const r = fb.root(bytes);
  assert.equal(r.get("f").typeName, "vector_float");
  assert.equal(r.get("i").typeName, "vector_int");
  assert.deepEqual(fb.decode(bytes), { f: [1.5, 2], i: [1, -300] });
});

test("encode: objects of one shape reuse their sorted key order; other shapes with the same first key do not", () => {
  const sortedCopy = (o) => Object.fromEntries(Object.keys(o).sort().map((k) => [k, o[k]]));
  const shapes = [
    { z: 1, b: "x", a: [1, 2], é: null },
    { z: 2, b: "y", a: [3], é: true },
    { z: 3, q: "y", a: [3], é: true }, // same first key and length, another key
    { z: 4, b: "w", a: [], "😀": 1 },
    { z: 5, b: "v", e: undefined, a: 1 }, // undefined skipped, as JSON.stringify does
    { z: 6 },
    { z: 7, b: "x", a: [1, 2], é: null },
    Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${(i * 37) % 100}`, i])), // a wide record: remembered too
  ];
  for (let round = 0; round < 3; round++) {
    for (const o of shapes) {
      const bytes = fb.encode(o);
      assert.deepEqual(Buffer.from(bytes), Buffer.from(fb.encode(sortedCopy(o))), JSON.stringify(o));
      assert.deepEqual(fb.decode(bytes), JSON.parse(JSON.stringify(o)));
    }
  }
});

test("keyVectorFor writes the bytes of the same keys pushed one by one and closed as a typed vector", () => {
  // Its width and offsets come from arithmetic; pin them to the value-stack
  // path across the 1- and 2-byte limits, every alignment and forced widths.
  // Keys whose block (names and NULs) is exactly `size` bytes: 0-9 a's, then 9-byte names.
  const keysOf = (size) => {
    const n = Math.ceil(size / 10);
    return ["a".repeat(size - 10 * (n - 1) - 1), ...Array.from({ length: n - 1 }, (_, i) => `k${String(i + 1).padStart(8, "0")}`)];
  };
  const check = (names, pad, force) => {
    const made = (f) => {
      const b = new fb.Builder({ share: fb.Share.None });
      b.forceMinWidth(force);
      b.startVector();
      for (let i = 0; i < pad; i++) b.string("");
      f(b);
      const len = b.length;
      b.endVector();
      return hex(b.finish().subarray(0, len));
    };
    const stack = made((b) => {
      b.startVector();
      for (const k of names) b.key(k);
      b.endTypedVector();
    });
    const block = made((b) => b.keyVectorFor(new fb.KeyLayout(names)));
    assert.equal(block, stack, `${names.length} keys after ${pad} strings, width ${force}`);
    // A layout keeps the vector's bytes per residue of the block's end: the
    // first call at a residue writes them, later ones copy them.
    let layout = layouts.get(JSON.stringify(names));
    if (layout === undefined) layouts.set(JSON.stringify(names), (layout = new fb.KeyLayout(names)));
    for (let round = 0; round < 2; round++) {
      assert.equal(made((b) => b.keyVectorFor(layout)), stack, `kept: ${names.length} keys after ${pad} strings, width ${force}, round ${round}`);
    }
  };
  const layouts = new Map();
  const sizes = [...Array.from({ length: 41 }, (_, i) => i), ...Array.from({ length: 51 }, (_, i) => 230 + i)];
  for (const size of sizes) for (let pad = 0; pad <= 8; pad++) for (const force of [1, 2]) check(size === 0 ? [] : keysOf(size), pad, force);
  for (let size = 65500; size <= 65560; size += 3) for (let pad = 0; pad <= 3; pad++) check(keysOf(size), pad, 1);
});

test("decode: key strings remembered across buffers only ever answer for equal bytes", () => {
  // More distinct keys than the shared table holds (4096), of every length
  // around its 128-byte limit, ASCII and not: collisions and evictions happen.
  const rng = (() => { let s = 7; return () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32; })();
  const alphabet = ["a", "b", "z", "_", "0", "é", "ß", "日", "😀"];
  const keys = new Set();
  while (keys.size < 6000) {
    const n = 1 + Math.floor(rng() * 150);
    let k = "";
    while (k.length < n) k += alphabet[Math.floor(rng() * alphabet.length)];
    keys.add(k);
  }
  const all = [...keys];
  const objects = [];
  for (let i = 0; i < all.length; i += 25) {
    const o = {};
    for (const k of all.slice(i, i + 25)) o[k] = k.length;
    objects.push(o);
  }
  const buffers = objects.map((o) => fb.encode(o));
  for (let round = 0; round < 2; round++) {
    buffers.forEach((b, i) => assert.deepEqual(fb.decode(b), objects[i]));
  }
  // A key met before, now with a byte that is not UTF-8: still an error.
  const b = fb.encode({ ab: 1 });
  assert.deepEqual(fb.decode(b), { ab: 1 });
  const bad = Uint8Array.from(b);
  const at = Buffer.from(bad).indexOf("ab\0");
  bad[at + 1] = 0xff;
  assert.throws(() => fb.decode(bad), (e) => e.kind === "InvalidUtf8");
});

test("decode: maps whose keys vectors start with the same key get their own keys", () => {
  // Each map has its own keys vector; keys are stored once, so {a, b} and
  // {a, c} have keys vectors of one length whose first elements agree.
  const v = [{ a: 1, b: 2 }, { a: 3, c: 4 }, { a: 5, b: 6, c: 7 }, { a: 8, b: 9 }, { a: 10, c: 11 }, { b: 12, c: 13 }];
  assert.deepEqual(fb.decode(fb.encode(v)), v);
  assert.deepEqual(fb.decode(fb.fromJSON(JSON.stringify(v))), v);
});

test("encode: a reused builder's key pool never points a key at an earlier buffer's bytes", () => {
  // encode() reuses one builder, whose pool keeps keys across buffers; a
  // fresh builder (options given) starts empty. Their bytes must agree,
  // including after the pool passes its 4,096-key cap and empties.
  const fresh = (v) => fb.encode(v, { share: fb.Share.Keys });
  const wide = {};
  for (let i = 0; i < 5000; i++) wide[`k${i}`] = i;
  const seq = [{ a: 1, b: 2 }, { b: 3 }, { zzz: 1, a: { b: 2, a: 3 } }, wide, { a: 1, k7: 2 }, { b: [{ a: 1 }, { b: 2 }] }];
  for (let round = 0; round < 3; round++) {
    for (const v of seq) {
      assert.equal(hex(fb.encode(v)), hex(fresh(v)));
      assert.deepEqual(fb.decode(fb.encode(v)), fb.decode(fresh(v)));
    }
  }
  // Past the pool's 1,024 epochs (it starts over when they wrap).
  for (let i = 0; i < 1100; i++) {
    // A key met again only 512 or 1,024 buffers later, at another position
    // (shapes cycle every 3 buffers): an epoch that wrapped without the pool
    // starting over would point it at the old position.
    const v = i % 3 === 0 ? { a: i } : i % 3 === 1 ? { A: "x", a: i } : { b: i, c: [i] };
    if (i % 512 === 10) v.rare = i;
    assert.equal(hex(fb.encode(v)), hex(fresh(v)));
  }
  // The same through an explicitly reused Builder.
  const b = new fb.Builder();
  for (const v of seq) {
    b.clear();
    fb.pushValue(b, v);
    assert.equal(hex(b.finish()), hex(fresh(v)));
  }
});

test("empty vectors and maps in one call write what start and end write, at every alignment and forced width", () => {
  for (const pad of [0, 1, 3, 7, 250, 300]) {
    for (const force of [0, 1, 3]) {
      const build = (oneCall) => {
        const b = new fb.Builder();
        b.forceMinWidth(1 << force);
        b.startVector();
        b.blob(new Uint8Array(pad).fill(7));
        for (let i = 0; i < 3; i++) {
          if (oneCall) {
            b.emptyVector();
            b.emptyMap();
          } else {
            b.startVector();
            b.endVector();
            b.startMap();
            b.endMap();
          }
          b.int(i);
        }
        b.endVector();
        return Array.from(b.finish());
      };
      assert.deepEqual(build(true), build(false), `pad ${pad}, force ${force}`);
    }
  }
  // As the root.
  const a = new fb.Builder();
  a.emptyMap();
  const c = new fb.Builder();
  c.startMap();
  c.endMap();
  assert.deepEqual(Array.from(a.finish()), Array.from(c.finish()));
  assert.deepEqual(fb.decode(fb.encode({ a: [], b: {}, c: [[], {}] })), { a: [], b: {}, c: [[], {}] });
});

test("the key pool keeps up to 16,384 keys and 2^20 units of key text across buffers, and never hands out a stale key", () => {
  const mapOf = (b, keys, v) => {
    b.startMap();
    for (const k of keys) { b.key(k); b.int(v); }
    b.endMap();
    return b.finish();
  };
  const fresh = (keys, v) => mapOf(new fb.Builder(), keys, v);
  const b = new fb.Builder();
  const ids = Array.from({ length: 10_000 }, (_, i) => `id${(i * 7919) % 10_000}`);
  // The same keys in later buffers, at other positions (after other keys):
  // each buffer's bytes are a fresh builder's.
  for (let round = 0; round < 4; round++) {
    const keys = round % 2 ? ids : [`pad${round}`].concat(ids.slice(round * 100));
    b.clear();
    assert.deepEqual(mapOf(b, keys, round), fresh(keys, round), `round ${round}`);
  }
  b.clear();
  assert.ok(b.pooledKeys >= 10_000, `kept ${b.pooledKeys}`);
  // More keys than that: the pool starts over at the next clear.
  const many = Array.from({ length: 20_000 }, (_, i) => `k${i}`);
  assert.deepEqual(mapOf(b, many, 1), fresh(many, 1));
  b.clear();
  assert.equal(b.pooledKeys, 0);
  // Long keys: past 2^20 units of key text it starts over too.
  const long = Array.from({ length: 60 }, (_, i) => `${i}`.padEnd(20_000, "x"));
  assert.deepEqual(mapOf(b, long, 2), fresh(long, 2));
  b.clear();
  assert.equal(b.pooledKeys, 0);
  assert.deepEqual(mapOf(b, ids, 3), fresh(ids, 3));
});

test("readers take any buffer or view of one, and name what came when it is not one", () => {
  const value = { name: "日本語".repeat(30), list: [1, 2.5, "x".repeat(100)], nested: { ok: true } };
  const bytes = fb.encode(value);
  const want = JSON.stringify(fb.decode(bytes));
  const json = fb.toJSON(bytes);
  const copyInto = (make) => { const m = make(bytes.length); new Uint8Array(m.buffer ?? m, m.byteOffset ?? 0, bytes.length).set(bytes); return m; };
  const padded = new Uint8Array(bytes.length + 11);
  padded.set(bytes, 5);
  const inputs = {
    "ArrayBuffer": copyInto((n) => new ArrayBuffer(n)),
    "SharedArrayBuffer": copyInto((n) => new SharedArrayBuffer(n)),
    "DataView": copyInto((n) => new DataView(new ArrayBuffer(n))),
    "Int8Array": copyInto((n) => new Int8Array(n)),
    "Uint8ClampedArray": copyInto((n) => new Uint8ClampedArray(n)),
    "Buffer": Buffer.from(bytes),
    "view at an offset": padded.subarray(5, 5 + bytes.length),
    "DataView at an offset": new DataView(padded.buffer, 5, bytes.length),
  };
  for (const [name, input] of Object.entries(inputs)) {
    assert.equal(JSON.stringify(fb.decode(input)), want, `decode of a ${name}`);
    assert.equal(fb.toJSON(input), json, `toJSON of a ${name}`);
    assert.deepEqual(Array.from(fb.verify(input)), Array.from(bytes), `verify of a ${name} returns its bytes`);
    assert.equal(fb.isValid(input), true, `isValid of a ${name}`);
    assert.equal(fb.root(input).asMap().get("name").asString(), value.name, `root of a ${name}`);
  }
  // An Int8Array's bytes read as bytes: a negative element is a byte above 127, not an offset below zero.
  const signed = new Int8Array(bytes.buffer, bytes.byteOffset, bytes.length);
  assert.ok(signed.some((x) => x < 0), "the sample holds bytes above 127");
  for (const bad of [null, undefined, "bytes", 7, Array.from(bytes), { length: 3 }]) {
    for (const f of [fb.decode, fb.verify, fb.isValid, fb.toJSON, fb.root]) {
      assert.throws(() => f(bad), (e) => e instanceof TypeError && /expected the bytes of a buffer .*got /.test(e.message), `${f.name}(${String(bad).slice(0, 10)})`);
    }
  }
});

test("values of another realm (a vm context, an iframe) encode as this realm's do", async () => {
  const vm = await import("node:vm");
  const ctx = vm.createContext({});
  const there = (src) => vm.runInContext(src, ctx);
  const hex = (b) => Buffer.from(b).toString("hex");
  const pairs = [
    [there("new Map([['b', [1, 2]], ['a', new Map([['k', 'v']])]])"), new Map([["b", [1, 2]], ["a", new Map([["k", "v"]])]])],
    [there("({ m: new Map([['x', 1.5]]), list: [new Map()] })"), { m: new Map([["x", 1.5]]), list: [new Map()] }],
    [there("new Set([1, 2])"), new Set([1, 2])],
  ];
  for (const kind of ["Float64Array", "Float32Array", "Int32Array", "Int16Array", "Int8Array", "Uint32Array", "Uint16Array", "Uint8Array"]) {
    pairs.push([there(`new ${kind}([1, 2, 100])`), new globalThis[kind]([1, 2, 100])]);
  }
  pairs.push([there("new BigInt64Array([1n, -2n])"), new BigInt64Array([1n, -2n])]);
  pairs.push([there("new BigUint64Array([1n, 2n ** 63n])"), new BigUint64Array([1n, 2n ** 63n])]);
  for (const [foreign, local] of pairs) {
    assert.notEqual(Object.getPrototypeOf(foreign), Object.getPrototypeOf(local), "the sample is of another realm");
    assert.equal(hex(fb.encode(foreign)), hex(fb.encode(local)), Object.prototype.toString.call(local));
  }
  // Not maps: an object that only says it is one, and one with an entries method.
  const spoof = { [Symbol.toStringTag]: "Map", entries() { return [["a", 1]][Symbol.iterator](); }, a: 2 };
  assert.deepEqual(fb.decode(fb.encode(spoof)), { a: 2 });
  class Bag { constructor() { this.n = 3; } entries() { return []; } }
  assert.deepEqual(fb.decode(fb.encode(new Bag())), { n: 3 });
});
