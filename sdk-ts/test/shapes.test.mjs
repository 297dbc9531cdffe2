// The generic decoder's memory across buffers: key sets proven by their
// bytes (value.ts) and maps built as compiled object literals (shapes.ts).
// Every result is compared with the plain path (nothing remembered, nothing
// compiled): values, key order, prototypes, errors and their paths.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fb from "../dist/index.js";
import { compiledShapes, resetShapes } from "../dist/shapes.js";
import { forgetKeySets } from "../dist/value.js";

/** Decodes `bytes` the plain way: no key set remembered, no maker compiled. */
function plain(bytes, options) {
  resetShapes(false);
  forgetKeySets();
  try {
    return fb.decode(bytes, options);
  } finally {
    resetShapes(true);
    forgetKeySets();
  }
}

/** Asserts `a` and `b` are equal values with the same key order and prototypes, all the way down. */
function same(a, b, where = "$") {
  assert.deepStrictEqual(a, b, where);
  if (a !== null && typeof a === "object" && !(a instanceof Uint8Array)) {
    assert.equal(Object.getPrototypeOf(a), Object.getPrototypeOf(b), `${where}: prototype`);
    assert.deepEqual(Object.keys(a), Object.keys(b), `${where}: key order`);
    for (const k of Object.keys(a)) same(a[k], b[k], `${where}[${JSON.stringify(k)}]`);
  }
}

/** The error `f` throws (it must throw). */
function caught(f) {
  try {
    f();
  } catch (e) {
    return e;
  }
  assert.fail("expected an error");
}

/** The kind of the error `f` throws, or `undefined` when it returns. */
function kindOf(f) {
  try {
    f();
    return undefined;
  } catch (e) {
    return e.kind;
  }
}

const odd = {
  'quote"': 1,
  "back\\slash": "two",
  "new\nline": [3, 4.5],
  "\u2028sep": null,
  constructor: true,
  toString: "not a function",
  hasOwnProperty: 7,
  "0": "zero",
  "10": "ten",
  "-1": "minus one",
  "1.5": 1.5,
  "": "empty key",
  "😀": { "日本": "語", é: [] },
  ["k".repeat(60)]: "a key longer than the key table keeps",
  "${x}": "`template`",
  "*/ })(); //": "comment-like",
  nested: { a: { b: { c: 123456789012 } }, list: [{ x: 1 }, { x: 2, y: [true, false] }] },
};

test("decode: maps met in many buffers decode as the plain path decodes them, odd keys included", () => {
  resetShapes(true);
  forgetKeySets();
  const docs = [
    odd,
    { a: 1, b: "x", c: [1, 2, 3] },
    { a: 2, b: "y", c: [] },
    { items: Array.from({ length: 20 }, (_, i) => ({ id: i, name: `n${i}`, tags: ["t", String(i)], price: i / 3 })) },
    Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${i}`, i])),
    Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`w${i}`, `v${i}`])),
  ];
  for (const doc of docs) {
    for (const bytes of [fb.encode(doc), fb.fromJSON(JSON.stringify(doc))]) {
      const expected = plain(bytes);
      const compiled = compiledShapes();
      for (let round = 0; round < 12; round++) same(fb.decode(bytes), expected);
      // The compiled path was taken (the plain path alone would pass the above),
      // except for the 300-key map, which is too wide to compile.
      if (Object.keys(doc).length <= 128) assert.ok(compiledShapes() > compiled, "no maker was compiled");
    }
  }
});

test("decode: a key set at the positions of one met before, with other bytes, has its own keys", () => {
  resetShapes(true);
  forgetKeySets();
  const before = { aa: 1, bb: 2 };
  const variants = [
    { aa: 1, bc: 2 }, // same layout, one byte of a key differs
    { aa: 1, bbb: 2 }, // one byte longer where the other's NUL was: the key positions are the same
    { a: 1, bb: 2 },
    { ab: 1, bb: 2 },
  ];
  // Each variant right after `before` was met again (a variant's own set replaces it in the table).
  for (const variant of variants) {
    for (let i = 0; i < 10; i++) same(fb.decode(fb.encode(before)), before);
    same(fb.decode(fb.encode(variant)), variant);
  }
  // And through the JSON path, whose layout differs from encode's.
  for (const v of [before, ...variants, before]) same(fb.decode(fb.fromJSON(JSON.stringify(v))), v);
});

test("decode: errors inside a compiled map name the same key, with the same kind, as the plain path", () => {
  resetShapes(true);
  forgetKeySets();
  const v = { a: "x", b: "yy", c: { d: "zzz" } };
  const good = fb.encode(v);
  const compiled = compiledShapes();
  for (let i = 0; i < 12; i++) same(fb.decode(good), v);
  assert.equal(compiledShapes(), compiled + 2, "a maker for each of the two key sets");
  for (const [text, path] of [["yy", ["b"]], ["zzz", ["c", "d"]], ["x\0", ["a"]]]) {
    const bad = Uint8Array.from(good);
    const at = Buffer.from(bad).indexOf(text);
    assert.ok(at > 0, text);
    bad[at] = 0xff;
    const e = caught(() => fb.decode(bad));
    const p = caught(() => plain(bad));
    assert.equal(e.kind, "InvalidUtf8");
    assert.equal(e.kind, p.kind);
    assert.deepEqual(e.path, path);
    assert.deepEqual(e.path, p.path);
  }
});

test("decode: key sets with __proto__ stay own properties however often they are met", () => {
  resetShapes(true);
  forgetKeySets();
  const bytes = fb.fromJSON('{"__proto__":{"polluted":1},"a":2}');
  for (let i = 0; i < 12; i++) {
    const v = fb.decode(bytes);
    assert.equal(Object.getPrototypeOf(v), Object.prototype);
    assert.deepEqual(Object.keys(v), ["__proto__", "a"]);
    assert.deepEqual(v["__proto__"], { polluted: 1 });
  }
  assert.equal({}.polluted, undefined);
});

test("decode: a key set remembered from an earlier buffer is charged to the budget as when it was read", () => {
  resetShapes(true);
  forgetKeySets();
  const v = { alpha: 1, beta: 2, gamma: 3 };
  const bytes = fb.encode(v);
  // Key bytes are 5 + 4 + 5 = 14; the map itself is charged 2 more.
  for (const maxBytes of [13, 14, 15, 16, 17]) {
    const budget = { maxNodes: 100, maxBytes };
    const expected = kindOf(() => plain(bytes, { budget }));
    assert.equal(expected, maxBytes < 16 ? "BudgetExceeded" : undefined, `maxBytes ${maxBytes}`);
    for (let i = 0; i < 12; i++) {
      assert.equal(kindOf(() => fb.decode(bytes, { budget })), expected, `maxBytes ${maxBytes}, round ${i}`);
    }
  }
});

test("decode: a table full of key sets met once still compiles one that recurs", () => {
  resetShapes(true);
  forgetKeySets();
  // More one-off key sets than the table holds (512).
  for (let i = 0; i < 600; i++) fb.decode(fb.encode({ [`once${i}`]: i, z: true }));
  const compiled = compiledShapes();
  const v = { recurring: 1, shape: "yes" };
  for (let i = 0; i < 12; i++) same(fb.decode(fb.encode(v)), v);
  assert.equal(compiledShapes(), compiled + 1);
});

test("decode: key sets with long keys are not compiled (a maker's source stays small)", () => {
  resetShapes(true);
  forgetKeySets();
  const compiled = compiledShapes();
  const v = { ["k".repeat(5000)]: 1, short: 2 };
  for (let i = 0; i < 12; i++) same(fb.decode(fb.encode(v)), v);
  assert.equal(compiledShapes(), compiled);
  const w = { ["k".repeat(2000)]: 1, short: 2 };
  for (let i = 0; i < 12; i++) same(fb.decode(fb.encode(w)), w);
  assert.equal(compiledShapes(), compiled + 1);
});

test("decode: a maker reads each field with the call of the type it held when compiled, and any other type as the plain path does", () => {
  const sample = { a: "text", b: 7, c: 2.5, d: true };
  /** Forgets everything, then compiles the maker of `sample`'s key set from `sample`'s types. */
  const warm = () => {
    resetShapes(true);
    forgetKeySets();
    const compiled = compiledShapes();
    for (let i = 0; i < 6; i++) same(fb.decode(fb.encode(sample)), sample);
    assert.equal(compiledShapes(), compiled + 1, "the sample's key set was compiled");
  };
  const kinds = ["str", -3, 300000, 2n ** 60n, 1.25, Math.PI, null, false, [1, "x"], { z: 1 }, new Uint8Array([1, 2]), ""];
  const budgets = [];
  for (let maxNodes = 0; maxNodes <= 12; maxNodes++) budgets.push({ maxNodes, maxBytes: 1 << 20 });
  for (let maxBytes = 0; maxBytes <= 40; maxBytes++) budgets.push({ maxNodes: 100, maxBytes });
  let checked = 0;
  for (const field of ["a", "b", "c", "d"]) {
    for (const v of kinds) {
      const doc = { ...sample, [field]: v };
      const json = JSON.stringify(doc, (_, x) => (typeof x === "bigint" ? Number(x) : x instanceof Uint8Array ? [...x] : x));
      for (const bytes of [fb.encode(doc), fb.fromJSON(json)]) {
        // The plain path first (it forgets every maker), then the maker compiled from the sample.
        const want = plain(bytes);
        const verdicts = budgets.map((budget) => kindOf(() => plain(bytes, { budget })));
        warm();
        same(fb.decode(bytes), want, `${field} = ${String(v)}`);
        budgets.forEach((budget, i) => {
          assert.equal(kindOf(() => fb.decode(bytes, { budget })), verdicts[i], `${field} = ${String(v)}, ${JSON.stringify(budget)}`);
        });
        checked++;
      }
    }
  }
  assert.equal(checked, 96);
  // A field read as a string that is not valid UTF-8: the same error and path.
  const bad = Uint8Array.from(fb.encode(sample));
  bad[Buffer.from(bad).indexOf("text")] = 0xff;
  const p = caught(() => plain(bad));
  warm();
  const e = caught(() => fb.decode(bad));
  assert.equal(e.kind, "InvalidUtf8");
  assert.deepEqual([e.kind, e.path], [p.kind, p.path]);
});
