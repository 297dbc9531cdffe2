// Encoder: encode and encodeTyped into one reused buffer, returning views.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import * as fb from "../dist/index.js";
import { FIXTURE_ROOTS } from "./typed_harness.mjs";

const fixtures = new URL("../../conformance/fixtures/", import.meta.url);
const gen = new URL("./gen/out/", import.meta.url);
const names = readdirSync(fixtures).filter((f) => f.endsWith(".json")).map((f) => f.slice(0, -5)).sort();
const docs = names.map((n) => [n, JSON.parse(readFileSync(new URL(`${n}.json`, fixtures), "utf8"))]);

/** The coders of a fixture's root type. */
async function typedOf(name) {
  const m = await import(new URL(`${name}.js`, gen));
  const type = FIXTURE_ROOTS[name];
  return { enc: m[`encode${type}`], into: m[`encode${type}Into`], dec: m[`decode${type}`] };
}

test("Encoder.encode writes the bytes encode writes, call after call", () => {
  const e = new fb.Encoder();
  for (let round = 0; round < 2; round++) {
    for (const [name, v] of docs) {
      assert.deepEqual(e.encode(v), fb.encode(v), name);
    }
  }
  for (const v of [null, true, 0, -1, 2 ** 40, 1.5, "", "é", [], {}, [1, "a", null], { b: { c: [1.5] } }, new Uint8Array([1, 2])]) {
    assert.deepEqual(e.encode(v), fb.encode(v), JSON.stringify(v));
  }
});

test("Encoder options apply as encode's do", () => {
  const options = { share: fb.Share.Keys | fb.Share.Strings, dedupKeyVectors: true };
  const e = new fb.Encoder(options);
  const v = { a: ["x", "x", "x"], b: [{ k: 1 }, { k: 2 }] };
  assert.deepEqual(e.encode(v), fb.encode(v, options));
  assert.notDeepEqual(e.encode(v), fb.encode(v));
  const shallow = new fb.Encoder({ maxDepth: 2 });
  assert.throws(() => shallow.encode([[[1]]]), (err) => err instanceof fb.FlexError && err.kind === "DepthLimit");
});

test("Encoder.encodeTyped writes the bytes of the generated encoder for every typed fixture", async () => {
  const e = new fb.Encoder();
  let checked = 0;
  for (const name of Object.keys(FIXTURE_ROOTS)) {
    const generic = fb.fromJSON(readFileSync(new URL(`${name}.json`, fixtures), "utf8"));
    const { enc, into, dec } = await typedOf(name);
    const v = dec(generic);
    for (let round = 0; round < 2; round++) assert.deepEqual(e.encodeTyped(v, into), enc(v), name);
    // Interleaved with plain encodes on the same encoder.
    assert.deepEqual(e.encode({ n: 1 }), fb.encode({ n: 1 }));
    assert.deepEqual(e.encodeTyped(v, into), enc(v), name);
    checked++;
  }
  assert.equal(checked, docs.length - 1, "every fixture but deep_nesting");
});

test("an Encoder's bytes are a view of its buffer, overwritten by its next call", () => {
  const e = new fb.Encoder();
  const first = e.encode({ a: 1 });
  const kept = first.slice();
  assert.deepEqual(fb.decode(first), { a: 1 });
  const second = e.encode({ z: "a longer string value" });
  assert.equal(first.buffer, second.buffer, "both are views of the encoder's buffer");
  assert.equal(first.byteOffset, 0);
  assert.notDeepEqual(first, kept, "the first view now shows the second buffer's bytes");
  assert.deepEqual(fb.decode(kept), { a: 1 });
  assert.deepEqual(fb.decode(second), { z: "a longer string value" });
});

test("a call made while the Encoder is busy gets a fresh copy", () => {
  const e = new fb.Encoder();
  let inner;
  const v = { outer: { toJSON: () => { inner = e.encode({ inner: [1, 2] }); return "x"; } } };
  const out = e.encode(v);
  assert.deepEqual(fb.decode(out), { outer: "x" });
  assert.deepEqual(fb.decode(inner), { inner: [1, 2] });
  assert.notEqual(inner.buffer, out.buffer);
  assert.equal(inner.byteLength, inner.buffer.byteLength, "the nested result owns its buffer");
});

test("an Encoder keeps working after a failed encode", async () => {
  const e = new fb.Encoder();
  const cyclic = [];
  cyclic.push(cyclic);
  assert.throws(() => e.encode(cyclic), (err) => err instanceof fb.FlexError && err.kind === "DepthLimit");
  assert.deepEqual(e.encode({ ok: true }), fb.encode({ ok: true }));
  assert.throws(() => e.encode({ bad: [1, 2n ** 64n] }), (err) => err instanceof fb.FlexError && err.kind === "OutOfRange");
  assert.deepEqual(e.encode([1, 2, 3]), fb.encode([1, 2, 3]));

  const { enc, into, dec } = await typedOf("chat_thread");
  const v = dec(fb.fromJSON(readFileSync(new URL("chat_thread.json", fixtures), "utf8")));
  const broken = { ...v, messages: [{ ...v.messages[0], metadata: null }] };
  assert.throws(() => e.encodeTyped(broken, into), (err) => err instanceof fb.FlexError && err.kind === "MissingField");
  assert.deepEqual(e.encodeTyped(v, into), enc(v));
});

test("every buffer handed out is a plain Uint8Array, whatever the builder writes into", async () => {
  const plain = (x, what) => {
    assert.equal(Object.getPrototypeOf(x), Uint8Array.prototype, what);
    assert.equal(x.constructor, Uint8Array, what);
    // A view of the same class: no subclass reaches the caller through species either.
    assert.equal(Object.getPrototypeOf(x.subarray(0, 1)), Uint8Array.prototype, `${what} (subarray)`);
  };
  const e = new fb.Encoder();
  // A value large enough to grow the builder's buffer and value stack past their first size.
  const big = Array.from({ length: 5000 }, (_, i) => ({ id: i, name: `n${i}`, tags: ["x", i] }));
  for (const v of [1, "é", { a: [1, 2.5] }, big]) {
    plain(fb.encode(v), "encode");
    plain(e.encode(v), "Encoder.encode");
  }
  const b = new fb.Builder();
  b.startMap();
  b.key("k");
  b.string("v");
  b.endMap();
  plain(b.finishView(), "Builder.finishView");
  b.clear();
  b.int(7);
  plain(b.finish(), "Builder.finish");
  plain(fb.fromJSON('{"a": [1, "x"]}'), "fromJSON");
  for (const name of names) {
    if (!(name in FIXTURE_ROOTS)) continue;
    const t = await typedOf(name);
    const value = t.dec(fb.fromJSON(readFileSync(new URL(`${name}.json`, fixtures), "utf8")));
    plain(t.enc(value), `${name} typed encode`);
    plain(e.encodeTyped(value, t.into), `${name} Encoder.encodeTyped`);
  }
});
