// Maps of up to 8 entries (`Builder.endMap`) and maps of up to 16 values on
// a given keys vector (`endMapWithKeys`, the generated encoders' call) are
// written by loops of their own (builder.ts `endSmallMap`,
// `writeSmallValues`). These tests pin that the bytes are those of the
// general vector writer, which they are compared with by turning the small
// writers off: every kind of value, offsets on both sides of the 1-, 2- and
// 4-byte limits, forced minimum widths, bigints (which take the general
// writer), and nested maps.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fb from "../dist/index.js";
import { useSmallMapWriters } from "../dist/builder.js";

function rng(seed) {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 4294967296;
}

const hex = (bytes) => Buffer.from(bytes).toString("hex");

/** Pushes one random value (a map of up to 8 entries when `depth` allows). */
function pushValue(b, r, depth) {
  const k = Math.floor(r() * (depth > 0 ? 15 : 13));
  switch (k) {
    case 0: b.null(); break;
    case 1: b.bool(r() < 0.5); break;
    case 2: b.int(Math.floor(r() * 256) - 128); break;
    case 3: b.int(Math.floor((r() - 0.5) * 2 ** [8, 16, 32, 48][Math.floor(r() * 4)])); break;
    case 4: b.uint(Math.floor(r() * 2 ** [8, 16, 32, 52][Math.floor(r() * 4)])); break;
    case 5: b.double(r() < 0.5 ? 1.5 : r()); break;
    case 6: b.float(r()); break;
    case 7: b.string("s".repeat(Math.floor(r() * 40))); break;
    case 8: b.string("é€😀".repeat(Math.floor(r() * 5))); break;
    case 9: b.blob(new Uint8Array(Math.floor(r() * 20))); break;
    case 10: b.indirectInt(Math.floor(r() * 1000)); break;
    case 11: {
      b.startVector();
      const n = Math.floor(r() * 4);
      for (let i = 0; i < n; i++) b.int(i * 1000);
      b.endVector();
      break;
    }
    case 12: b.typedVector([1, 2, 300], "i32"); break;
    case 13:
    case 14: pushMap(b, r, depth - 1, Math.floor(r() * 9)); break;
  }
}

/** Pushes a map of `n` random entries (keys shuffled; some repeat earlier maps' keys, which the pool shares). */
function pushMap(b, r, depth, n) {
  const keys = new Set();
  while (keys.size < n) keys.add(r() < 0.5 ? `k${Math.floor(r() * 12)}` : `key ${Math.floor(r() * 1e6)} ü`);
  b.startMap();
  for (const key of keys) {
    b.key(key);
    pushValue(b, r, depth);
  }
  b.endMap();
}

/** Filler bytes before the maps: offsets from them back to early keys and values cross each width limit. */
const FILLERS = [0, 1, 200, 250, 254, 255, 256, 300, 65000, 65530, 65535, 65536, 70000];

function build(seed, small) {
  useSmallMapWriters(small);
  try {
    const r = rng(seed);
    const b = new fb.Builder();
    const min = [0, 0, 1, 2, 4, 8][seed % 6];
    b.startVector();
    b.string("early");
    b.key("k1");
    b.blob(new Uint8Array(FILLERS[seed % FILLERS.length]));
    if (min) b.forceMinWidth(min);
    const maps = 1 + Math.floor(r() * 6);
    for (let m = 0; m < maps; m++) pushMap(b, r, 2, Math.floor(r() * 9));
    if (seed % 5 === 0) {
      // A bigint beside small values: the map takes the general writer.
      b.startMap();
      b.key("big");
      b.uint(2n ** 63n + 5n);
      b.key("small");
      b.int(1);
      b.endMap();
    }
    b.endVector();
    return hex(b.finish());
  } finally {
    useSmallMapWriters(true);
  }
}

test("small maps are written with the bytes of the general vector writer", () => {
  for (let seed = 0; seed < 1500; seed++) {
    const small = build(seed, true);
    assert.equal(small, build(seed, false), `seed ${seed}`);
    // Every buffer reads back: the maps hold their keys in order.
    fb.verify(Buffer.from(small, "hex"));
  }
});

test("maps on a given keys vector, up to 16 values and beyond, are written with the general writer's bytes", () => {
  for (let seed = 0; seed < 600; seed++) {
    const out = [true, false].map((small) => {
      useSmallMapWriters(small);
      try {
        const r = rng(seed);
        const b = new fb.Builder();
        const n = seed % 19;
        const names = Array.from({ length: n }, (_, i) => `f${String(i).padStart(2, "0")}`);
        b.startVector();
        b.blob(new Uint8Array(FILLERS[seed % FILLERS.length]));
        const kv = b.keyVector(names);
        b.blob(new Uint8Array(FILLERS[(seed >> 2) % FILLERS.length]));
        if (seed % 7 === 3) b.forceMinWidth(4);
        for (let m = 0; m < 3; m++) {
          b.startMap();
          for (let i = 0; i < n; i++) pushValue(b, r, 1);
          b.endMapWithKeys(kv);
        }
        b.endVector();
        return hex(b.finish());
      } finally {
        useSmallMapWriters(true);
      }
    });
    assert.equal(out[0], out[1], `seed ${seed}`);
  }
});

test("a small map's values take the width whose limit their farthest offset is on either side of", () => {
  // One value (the `j`th of `n`) refers back to a string written before a
  // filler of `gap` bytes; the others are scalars. The last slot's distance
  // to that string bounds every offset from above, exactly when the value is
  // the last: sweeping the gap across the 1- and 2-byte limits puts the
  // offset on both sides of each, for maps on a given keys vector (up to 16
  // values) and maps ended by `endMap` (up to 8).
  let n = 0;
  for (const gap of [...Array.from({ length: 40 }, (_, i) => 236 + i), ...Array.from({ length: 40 }, (_, i) => 65500 + i)]) {
    for (let len = 1; len <= 16; len++) {
      for (const j of new Set([0, len - 1])) {
        for (const given of len <= 8 ? [true, false] : [true]) {
          const out = [true, false].map((small) => {
            useSmallMapWriters(small);
            try {
              const b = new fb.Builder({ share: fb.Share.Keys | fb.Share.Strings });
              const names = Array.from({ length: len }, (_, i) => `f${String(i).padStart(2, "0")}`);
              b.startVector();
              const kv = given ? b.keyVector(names) : null;
              b.string("far");
              b.blob(new Uint8Array(gap));
              b.startMap();
              for (let i = 0; i < len; i++) {
                if (!given) b.key(names[i]);
                if (i === j) b.string("far");
                else b.int(i);
              }
              if (given) b.endMapWithKeys(kv);
              else b.endMap();
              b.endVector();
              return hex(b.finish());
            } finally {
              useSmallMapWriters(true);
            }
          });
          assert.equal(out[0], out[1], `gap ${gap}, ${len} values, the far one ${j}, ${given ? "given keys" : "endMap"}`);
          n++;
        }
      }
    }
  }
  assert.ok(n > 3000, `${n}`);
});
