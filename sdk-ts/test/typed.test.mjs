// Generated TypeScript coders (test/gen/out, made by `cargo xtask test`):
// byte identity with the Rust generated encoders on every fixture, and the
// data defects of the previous implementation (DESIGN.md) as regressions.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import * as fb from "../dist/index.js";

const gen = new URL("./gen/out/", import.meta.url);
const refs = new URL("./gen/ref/", import.meta.url);
assert.ok(existsSync(gen), "generated coders missing: run `cargo xtask test` (it generates them)");
const defects = await import(new URL("defects.js", gen));
const shop = await import(new URL("shop.js", gen));

const ROOTS = {
  api_response: "ApiResponse", chat_thread: "ChatThread", metrics_96k: "Metrics", repeated_maps: "RepeatedMaps",
  string_flood: "StringFlood", time_series: "TimeSeries", unicode_heavy: "UnicodeHeavy", user_profile: "UserProfile",
  wide_map: "WideMap", width_bomb: "WidthBomb",
};

for (const [fixture, type] of Object.entries(ROOTS)) {
  test(`typed encoder is byte-identical to the Rust one: ${fixture}`, async () => {
    const m = await import(new URL(`${fixture}.js`, gen));
    const text = readFileSync(new URL(`../../conformance/fixtures/${fixture}.json`, import.meta.url), "utf8");
    const value = m[`decode${type}`](fb.fromJSON(text)); // keyed path (generic layout)
    const ours = m[`encode${type}`](value);
    const rust = new Uint8Array(readFileSync(new URL(`${fixture}.bin`, refs)));
    assert.equal(Buffer.from(ours).toString("hex"), Buffer.from(rust).toString("hex"));
    assert.deepEqual(m[`decode${type}`](ours), value, "positional decode gives the same value");
    assert.deepEqual(m[`decode${type}`](ours, { keyedOnly: true }), value, "keyed decode gives the same value");
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
