// Compiled object writers (src/shapes.ts `writerFor`): once `encode` has met
// an object shape a few times it writes that shape's objects with a function
// compiled for its keys. These tests pin that the bytes and the errors are
// exactly those of the plain loop, which they are compared with by turning
// compiling off.
import { test } from "node:test";
import assert from "node:assert/strict";

import * as fb from "../dist/index.js";
import { compiledWriters, resetShapes, WRITE_AFTER } from "../dist/shapes.js";
import { resetObjectShapes } from "../dist/value.js";

/**
 * `encode`'s result (bytes) or its error (kind and message) for each value
 * maker (called with the round number), `times` rounds over, with compiled
 * writers on or off.
 */
function outcomes(values, { compile, times, options }) {
  resetObjectShapes();
  resetShapes(compile);
  const out = [];
  for (let round = 0; round < times; round++) {
    for (const make of values) {
      try {
        out.push(Buffer.from(fb.encode(make(round), options)).toString("hex"));
      } catch (e) {
        out.push(`${e.kind}: ${e.message}`);
      }
    }
  }
  resetShapes(true);
  return out;
}

/** `o` with four more fields, at the start, middle and end of the key order: writers are compiled for objects of 6 keys or more. */
const pad = (o) => ({ AA: 1, mm: "m", ...o, zz: null, "~": [0] });

/** Compares writers on and off over enough rounds for every shape to be compiled and used. */
function sameAsPlain(values, options) {
  const before = compiledWriters();
  const times = WRITE_AFTER + 3;
  const plain = outcomes(values, { compile: false, times, options });
  assert.equal(compiledWriters(), before, "nothing compiled while compiling is off");
  const compiled = outcomes(values, { compile: true, times, options });
  assert.ok(compiledWriters() > before, "some writer was compiled");
  for (let i = 0; i < plain.length; i++) assert.equal(compiled[i], plain[i], `value ${i % values.length}, round ${Math.floor(i / values.length)}`);
  return compiledWriters() - before;
}

test("objects written by compiled writers are the bytes of the plain loop, for every kind of field value", () => {
  class Point {
    constructor(x, y) {
      this.x = x;
      this.y = y;
    }
  }
  const withGetter = () => {
    const o = pad({ a: 1 });
    Object.defineProperty(o, "b", { get: () => "got", enumerable: true });
    Object.defineProperty(o, "hidden", { value: 3, enumerable: false });
    return o;
  };
  const kinds = [
    "s", "", "é and 日本", 0, -0, 1, -1, 255, -129, 70000, 2 ** 40, -(2 ** 53) + 1, 2 ** 53, 1.5, -2.25, 0.1, NaN, Infinity,
    true, false, null, undefined, () => 1, Symbol("x"), 12n, -(2n ** 63n), 2n ** 64n - 1n,
    [1, "a", null], ["a", "b", "c", "d", "e", "f", "g", "h", "i"], {}, { nested: { deeper: [1, { k: 2 }] } },
    new Float64Array([1.5, 2]), new Uint8Array([1, 2, 3]), new Map([["m", 1]]), { toJSON: () => "as json" },
  ];
  const values = [];
  // One shape per field kind at every position, and shapes mixing all kinds.
  for (let i = 0; i < kinds.length; i++) {
    values.push(() => pad({ id: i, value: kinds[i], zy: "last" }));
    values.push(() => pad({ value: kinds[i], a: 1 }));
  }
  values.push(() => Object.fromEntries(kinds.map((v, i) => [`k${String(i).padStart(2, "0")}`, v])));
  values.push(() => Object.fromEntries(kinds.map((v, i) => [`k${(i * 7) % kinds.length}`, v])));
  // Keys out of order, integer-like keys (listed first by the engine), non-ASCII and emoji keys.
  values.push(() => ({ zeta: 1, alpha: 2, "10": 3, "2": 4, "é": 5, "😀": 6, "e\u0301": 7, "\u2028": 8 }));
  // Astral keys (surrogate pairs) sort after U+E000..U+FFFF in UTF-8, before them in UTF-16.
  values.push(() => ({ "😀": 1, "\uFF5E": 2, "\uE000": 3, "\uD7FF": 4, a: 5, "𠀋x": 6, "𠀋": 7 }));
  values.push(() => Object.assign(new Point(1, "two"), { a: 1, b: 2, c: 3, d: 4 }));
  values.push(withGetter);
  // A field whose value changes kind from one object of the shape to the next.
  values.push((round) => pad({ changing: [1, "s", null, { o: 1 }, [2], 1.5, true, 9n][round % 8], fixed: 0 }));
  // A wide record, and the same shape nested in itself.
  values.push(() => Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`c${(i * 37) % 100}`, i % 3 ? i : `v${i}`])));
  values.push(() => pad({ id: 1, child: pad({ id: 2, child: pad({ id: 3, child: null }) }) }));
  // Small objects are left to the loop: the same bytes either way.
  values.push(() => ({ b: 1, a: "x" }));
  // Nine shapes above have six keys or more (each padded record shape, the two rows of every kind, the mixed keys, Point, the wide row).
  const n = sameAsPlain(values);
  assert.ok(n >= 9, `${n} writers compiled`);
});

test("compiled writers keep the plain loop's errors: NUL in a key, keys that become the same UTF-8, depth, unsupported values", () => {
  const deep = () => {
    let o = pad({ leaf: 1, at: 0 });
    for (let i = 0; i < 70; i++) o = pad({ at: i, next: o });
    return o;
  };
  const values = [
    () => pad({ "a\0b": 1, ok: 2 }),
    // Two lone surrogates are both written as U+FFFD: a duplicate key, which the writer must not let through.
    () => pad({ "\uD800": 1, "\uDC00": 2 }),
    () => pad({ "x\uD800": 1, "x\uDBFF": 2, y: 3 }),
    deep,
    (round) => pad({ ok: 1, bad: pad({ f: Symbol.iterator, n: round }) }),
    () => pad({ ok: 1, fn: { toJSON: () => { throw new Error("from toJSON"); } } }),
  ];
  sameAsPlain(values);
  // And they are errors, not bytes.
  for (let round = 0; round < WRITE_AFTER + 2; round++) {
    assert.throws(() => fb.encode(pad({ "\uD800": 1, "\uDC00": 2 })), (e) => e instanceof fb.FlexError);
    assert.throws(() => fb.encode(pad({ "a\0b": 1, ok: 2 })), (e) => e instanceof fb.FlexError);
  }
});

test("compiled writers write the bytes of the plain loop among other shapes and under every sharing option", () => {
  const record = (i) => ({ name: `n${i % 5}`, tags: ["t", `u${i}`], score: i / 4, ok: i % 2 === 0, id: i, at: 2 * i });
  const values = [
    () => Array.from({ length: 30 }, (_, i) => record(i)),
    () => pad({ items: Array.from({ length: 12 }, (_, i) => record(i)), meta: record(99), name: "outer" }),
  ];
  sameAsPlain(values);
  // Encoding with options takes a fresh builder per call: keys and strings
  // shared, or nothing shared (every key written again, which a writer must
  // not shortcut).
  for (const share of [fb.Share.Keys | fb.Share.Strings, fb.Share.None, fb.Share.Strings]) sameAsPlain(values, { share });
  resetObjectShapes();
  const first = Buffer.from(fb.encode(values[1](), { share: fb.Share.None }));
  assert.deepEqual(fb.decode(first), JSON.parse(JSON.stringify(values[1]())));
});

test("a toJSON that encodes an object of the same shape, in the middle of one, leaves the outer object's keys right", () => {
  const inner = (n) => pad({ id: n, nested: n, q: "inner" });
  const values = [
    (round) => pad({
      id: round,
      nested: { toJSON: () => Buffer.from(fb.encode(inner(round))).toString("hex") },
      q: "outer",
    }),
    // Records of that shape around it in the same buffer, the nested encode
    // writing several (so the writer notes and reads positions in both buffers).
    (round) => [
      inner(round),
      inner(round + 1),
      // (Strings of other lengths in the nested buffer put its keys at other positions.)
      pad({ id: 0, nested: { toJSON: () => fb.encode([1, 2, 3].map((n) => pad({ id: n, nested: "s".repeat(9 * n), q: "q" }))).length }, q: "x" }),
      inner(round + 2),
    ],
  ];
  sameAsPlain(values);
});

test("compiled writers' keys follow their builder's pool: two builders in turn, a pool emptied, epochs wrapping", () => {
  const rec = (i) => pad({ id: i, name: `n${i % 7}`, at: 2 * i });
  // A record of the compiled shape, then a small object (written by the
  // plain loop, through the pool) sharing its `id` and `at` keys.
  const value = (i) => [rec(i), { at: i, id: -i, x: "s".repeat(i % 5) }, rec(i + 1)];
  // More distinct keys than the pool keeps: it is emptied at the next clear.
  const many = Object.fromEntries(Array.from({ length: 17_000 }, (_, k) => [`k${k}`, k]));
  // Two encoders in turn for 100 rounds, then the first alone, past the
  // 1,024 epochs after which its pool starts over.
  const rounds = 1_200;
  const want = outcomes([value], { compile: false, times: rounds });
  resetObjectShapes();
  resetShapes(true);
  const before = compiledWriters();
  // In turn, the two encoders' epochs are equal: a key position noted in
  // one buffer would be taken for the other's if their pools were not told apart.
  const encoders = [new fb.Encoder(), new fb.Encoder()];
  for (let round = 0; round < rounds; round++) {
    const e = encoders[round < 100 ? round % 2 : 0];
    // Keys of the emptied pool must not be taken as still pooled.
    if (round === 150) e.encode(many);
    const got = Buffer.from(e.encode(value(round))).toString("hex");
    assert.equal(got, want[round], `round ${round}`);
  }
  assert.ok(compiledWriters() > before, "the record's writer was compiled");
});

test("keys written again in later buffers are copied from the pool's kept bytes: the bytes of a fresh builder, and a NUL key fails every time", () => {
  const keys = ["id", "naïve", "名前", "emoji😀", "lone\ud800x", "x".repeat(40), "k\u0000nul", "zz"];
  const encoder = new fb.Encoder();
  let rng = 12345;
  const next = (n) => ((rng = (rng * 1103515245 + 12345) >>> 0) >>> 8) % n;
  let failures = 0;
  for (let round = 0; round < 300; round++) {
    // Objects of 1 to 8 of the keys (some shapes compiled, some by the
    // loop), nested, in a random order each round.
    const obj = () => Object.fromEntries(Array.from({ length: 1 + next(8) }, () => [keys[next(keys.length)], next(1000)]));
    const value = round % 3 === 0 ? obj() : [obj(), { inner: obj(), ...obj() }, obj()];
    let want, got;
    try {
      want = Buffer.from(fb.encode(value, { share: fb.Share.Keys })).toString("hex");
    } catch (e) {
      want = `${e.kind}: ${e.message}`;
    }
    try {
      got = Buffer.from(encoder.encode(value)).toString("hex");
    } catch (e) {
      got = `${e.kind}: ${e.message}`;
      failures++;
    }
    assert.equal(got, want, `round ${round}`);
  }
  assert.ok(failures > 10, "the NUL key failed in many rounds");
});
