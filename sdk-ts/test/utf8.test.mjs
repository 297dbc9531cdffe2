// Strict UTF-8 on every decode path, at every string length (short strings
// take the JS loop, long ones TextDecoder or Node's native slice): the rule is
// the verifier's (no overlong forms, surrogates, code points above U+10FFFF or
// truncated sequences), and valid text decodes exactly as a fatal TextDecoder.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fb from "../dist/index.js";
import { compareUtf8, sortUtf8, writeUtf8, writeUtf8Range } from "../dist/utf8.js";
import { utf8EncodeMismatches } from "./utf8_encode_check.mjs";

const BAD = [[0x80], [0xbf], [0xc0, 0x80], [0xc1, 0xbf], [0xc2], [0xe0, 0x80, 0x80], [0xe0, 0x9f, 0xbf], [0xed, 0xa0, 0x80],
  [0xed, 0xbf, 0xbf], [0xe2, 0x82], [0xf0, 0x8f, 0xbf, 0xbf], [0xf4, 0x90, 0x80, 0x80], [0xf5, 0x80, 0x80, 0x80],
  [0xf0, 0x9f, 0x98], [0xff], [0xfe], [0xc3, 0x28], [0xe2, 0x28, 0xa1]];
const GOOD = ["é", "€", "😀", "\u{10ffff}", "\ufffd", "\u07ff", "\u0800", "\ud7ff", "\ue000", "\u{10000}"];
const fatal = new TextDecoder("utf-8", { fatal: true });

/** A buffer whose root is the string of `bytes` (a 1-byte size prefix). */
function stringBuffer(bytes) {
  const n = bytes.length;
  const out = new Uint8Array(n + 5);
  out[0] = n;
  out.set(bytes, 1);
  out[n + 1] = 0;
  out[n + 2] = n + 1; // offset back from the root slot to the data
  out[n + 3] = (5 << 2) | 0; // string, 1-byte size
  out[n + 4] = 1;
  return out;
}

function typedStr(bytes) {
  const c = new fb.DecodeContext(bytes);
  const [p, w, t] = c.root();
  return c.str(p, w, t);
}

/** A fatal TextDecoder's result, or undefined when it rejects the bytes. */
const strict = (bytes) => {
  try {
    return fatal.decode(bytes);
  } catch {
    return undefined;
  }
};

const pad = (k) => Array.from({ length: k }, (_, i) => 0x61 + (i % 26));

test("malformed UTF-8 is rejected at every length and position by verify, decode and typed reads", () => {
  let n = 0;
  for (const bad of BAD) {
    for (let before = 0; before <= 40; before += before < 20 ? 1 : 7) {
      for (const after of [0, 1, 3, 17]) {
        const buf = stringBuffer([...pad(before), ...bad, ...pad(after)]);
        for (const [what, f] of [["verify", () => fb.verify(buf)], ["decode", () => fb.decode(buf)], ["typed", () => typedStr(buf)],
          ["asString", () => fb.root(buf).asString()]]) {
          assert.throws(f, (e) => e instanceof fb.FlexError && e.kind === "InvalidUtf8", `${what} ${bad} after ${before}`);
          n++;
        }
      }
    }
  }
  assert.ok(n > 3000);
});

test("valid UTF-8 decodes as a fatal TextDecoder does, at every length", () => {
  const te = new TextEncoder();
  for (const s of GOOD) {
    for (let before = 0; before <= 40; before++) {
      const text = String.fromCharCode(...pad(before)) + s + "z";
      const bytes = te.encode(text);
      const buf = stringBuffer(bytes);
      assert.equal(fatal.decode(bytes), text);
      fb.verify(buf);
      assert.equal(fb.decode(buf), text);
      assert.equal(typedStr(buf), text);
      assert.equal(fb.root(buf).asString(), text);
    }
  }
});

test("the JS loop (browsers and Workers decode strings below 64 bytes with it) follows the same rule at every length", async () => {
  const { utf8Loop } = await import("../dist/utf8.js");
  const te = new TextEncoder();
  let n = 0;
  const samples = [...BAD, ...GOOD.map((s) => [...te.encode(s)])];
  for (const mid of samples) {
    for (let before = 0; before + mid.length < 64; before++) {
      for (const after of [0, 1, 2]) {
        const bytes = Uint8Array.from([...pad(before), ...mid, ...pad(after)]);
        if (bytes.length >= 64) continue;
        // At an offset inside a larger buffer, with bytes either side that must not be read.
        const buf = Uint8Array.from([0xff, ...bytes, 0x80]);
        assert.equal(utf8Loop(buf, 1, bytes.length), strict(bytes), `${[...bytes]}`);
        n++;
      }
    }
  }
  assert.equal(utf8Loop(new Uint8Array(0), 0, 0), "");
  assert.ok(n > 2000, `${n}`);
});

test("utf8Units takes exactly what a fatal TextDecoder takes: every lead byte with continuation bytes at the edges of each range, cut at every length", async () => {
  const { utf8Units } = await import("../dist/utf8.js");
  // Each range's edges: ASCII, the continuation range's ends and the
  // sub-ranges that decide overlong forms (E0 and F0), surrogates (ED)
  // and code points past U+10FFFF (F4), and the bytes above it.
  const edges = [0x00, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xf4, 0xff];
  const out = new Uint16Array(16);
  const units = (bytes) => {
    // At an offset inside a larger buffer whose bytes either side must not be read.
    const buf = Uint8Array.from([0xe2, ...bytes, 0x80, 0x80]);
    const u = utf8Units(buf, 1, bytes.length, out);
    return u < 0 ? undefined : String.fromCharCode(...out.subarray(0, u));
  };
  let n = 0;
  let accepted = 0;
  for (let lead = 0x80; lead <= 0xff; lead++) {
    for (const c1 of edges) {
      for (const c2 of edges) {
        for (const c3 of edges) {
          for (const bytes of [[lead], [lead, c1], [lead, c1, c2], [lead, c1, c2, c3], [0x61, lead, c1, c2, c3, 0x7a]]) {
            const want = strict(Uint8Array.from(bytes));
            assert.equal(units(bytes), want, `${bytes.map((b) => b.toString(16))}`);
            if (want !== undefined) accepted++;
            n++;
          }
        }
      }
    }
  }
  assert.ok(n > 800000 && accepted > 10000, `${n} ${accepted}`);
});

test("strings shared by the builder decode to equal strings, each use charged to the budget, invalid ones rejected at every use", () => {
  const text = "shared string é ".repeat(8);
  const b = new fb.Builder({ share: fb.Share.All });
  b.startVector();
  for (let i = 0; i < 500; i++) {
    b.string(text);
    b.string(`unique ${i}`);
  }
  b.endVector();
  const bytes = b.finish();
  const once = new TextEncoder().encode(text).length;
  assert.ok(bytes.length < 500 * once, "the builder stored the string once");
  const want = Array.from({ length: 1000 }, (_, i) => (i % 2 === 0 ? text : `unique ${i >> 1}`));
  assert.deepEqual(fb.decode(bytes), want);
  const c = new fb.DecodeContext(bytes);
  const [p, w, t] = c.root();
  const d = c.vector(p, w, t);
  const got = [];
  for (let i = 0; i < c.c; i++) got.push(c.str(d + i * c.w, c.w, c.type(d, c.w, 1000, c.e, i)));
  assert.deepEqual(got, want);
  // Every reference counts: 500 uses of the shared string exceed a budget that one use fits in.
  const budget = { maxNodes: 1 << 20, maxBytes: 100 * once };
  assert.throws(() => fb.decode(bytes, { budget }), (e) => e.kind === "BudgetExceeded");
  // A shared string that is not UTF-8 fails, whichever reference reaches it first.
  const bad = bytes.slice();
  const at = Buffer.from(bad).indexOf(Buffer.from("shared string"));
  bad[at] = 0xff;
  assert.throws(() => fb.decode(bad), (e) => e.kind === "InvalidUtf8");
});

test("asciiArgs decodes every ASCII string of 0 to 32 bytes and declines any other byte at every position", async () => {
  const { asciiArgs } = await import("../dist/utf8.js");
  const buf = new Uint8Array(40);
  for (let len = 0; len <= 32; len++) {
    for (const at of [0, 3]) {
      // Every ASCII byte value, NUL and DEL included, passes through.
      for (let start = 0; start < 128; start += 16) {
        for (let i = 0; i < len; i++) buf[at + i] = (start + i * 7) & 0x7f;
        assert.equal(asciiArgs(buf, at, len), String.fromCharCode(...buf.subarray(at, at + len)), `len ${len} at ${at}`);
      }
      for (let bad = 0; bad < len; bad++) {
        for (const b of [0x80, 0xc3, 0xff]) {
          for (let i = 0; i < len; i++) buf[at + i] = 0x61 + i;
          buf[at + bad] = b;
          assert.equal(asciiArgs(buf, at, len), undefined, `len ${len}, byte ${b} at ${bad}`);
        }
      }
    }
  }
  buf.fill(0x61);
  assert.equal(asciiArgs(buf, 0, 33), undefined);
});

test("text that starts outside ASCII follows the same rule at every length (Node decodes it to UTF-16 in JS)", () => {
  const te = new TextEncoder();
  /** A buffer whose root is the string of `bytes` (a 2-byte size prefix). */
  const wideString = (bytes) => {
    const n = bytes.length;
    const out = new Uint8Array(n + 7);
    out[0] = n & 0xff;
    out[1] = n >> 8;
    out.set(bytes, 2);
    out[n + 2] = 0;
    out[n + 3] = (n + 1) & 0xff; // offset back from the root slot to the data
    out[n + 4] = (n + 1) >> 8;
    out[n + 5] = (5 << 2) | 1; // string, 2-byte size
    out[n + 6] = 2;
    return out;
  };
  let n = 0;
  for (const lead of ["é", "日本", "😀", "\u{10ffff}"]) {
    for (const len of [17, 18, 31, 64, 65, 200, 1000]) {
      const body = lead + "語a€😀".repeat(len);
      const good = te.encode(body).subarray(0, len * 3);
      let cut = good.length;
      while ((good[cut] & 0xc0) === 0x80) cut--;
      const valid = good.subarray(0, cut);
      for (const bytes of [valid, ...BAD.map((bad) => [...valid.subarray(0, cut >> 1), ...bad, ...valid.subarray(cut >> 1)]),
        ...BAD.map((bad) => [...valid, ...bad])]) {
        const arr = Uint8Array.from(bytes);
        if (arr[0] < 0x80 || arr.length < 17) continue;
        const buf = wideString(arr);
        const want = strict(arr);
        for (const f of [() => fb.decode(buf), () => typedStr(buf), () => fb.root(buf).asString()]) {
          if (want === undefined) assert.throws(f, (e) => e instanceof fb.FlexError && e.kind === "InvalidUtf8");
          else assert.equal(f(), want);
          n++;
        }
      }
    }
  }
  assert.ok(n > 1000, `${n}`);
});

test("writeUtf8 writes TextEncoder's bytes at every length, lone surrogates as U+FFFD", () => {
  assert.deepEqual(utf8EncodeMismatches(writeUtf8), []);
});

test("writeUtf8Range writes the bytes of the slice it names, a pair split by either end of the range as U+FFFD", () => {
  // Every range of texts around each writer's length limits (20, 48, 256
  // units), with surrogate pairs and lone halves at every position.
  const pieces = ["a", "é", "€", "😀", "\ud800", "\udc00", "z"];
  let r = 7;
  const rand = (n) => ((r = (r * 1103515245 + 12345) >>> 0) % n);
  const te = new TextEncoder();
  const buf = new Uint8Array(4096);
  let checked = 0;
  for (const len of [0, 1, 2, 19, 20, 21, 47, 48, 49, 255, 256, 257, 400]) {
    for (let round = 0; round < 6; round++) {
      let text = "";
      while (text.length < len + 6) text += pieces[rand(pieces.length)];
      const from = rand(6);
      const to = Math.min(text.length, from + len);
      const n = writeUtf8Range(buf, 3, text, from, to);
      assert.deepEqual(buf.subarray(3, 3 + n), te.encode(text.slice(from, to)), `${len} ${from}..${to}`);
      checked++;
    }
  }
  assert.equal(checked, 78);
});

test("fromJSON writes each string as the core does: plain, with escapes, pairs and lone-surrogate errors", () => {
  // The same value through fromJSON and through encode of JSON.parse (whose
  // bytes the conformance suite ties to the core's): strings plain or with
  // escapes, surrogate pairs written out or escaped, at lengths around the
  // writers' limits, as keys, values and vector elements.
  const texts = ["", "x", "plain ascii text", "é".repeat(30), "😀 emoji 🧑‍💻 and more", "tab\\there", 'q\\"uote',
    "\\u00e9\\u20ac", "\\ud83d\\ude00 escaped pair", "a".repeat(300), "日本語".repeat(40) + "😀"];
  for (const t of texts) {
    const json = `{"k${t}":"${t}","v":["${t}",1,"${t}"]}`;
    const value = JSON.parse(json);
    assert.deepEqual(fb.fromJSON(json), fb.encode(value), json.slice(0, 60));
  }
  // Lone surrogates, raw or escaped, as values and keys: rejected.
  for (const bad of ['"\ud800"', '"a\udc00b"', '"\ud800x"', '["😀", "\ud83d"]', '{"\udc00": 1}', '"\\ud800"', '"unterminated']) {
    assert.throws(() => fb.fromJSON(bad), (e) => e.kind === "Json", JSON.stringify(bad));
  }
});

test("sortUtf8 orders keys as compareUtf8 does, surrogates against U+E000 and up included", () => {
  let r = 1;
  const rnd = () => (r = (Math.imul(r, 1664525) + 1013904223) >>> 0) / 4294967296;
  // Pieces whose UTF-16 order and UTF-8 order disagree (a surrogate against
  // U+E000..U+FFFF), lone surrogates, and plain text.
  const pool = ["a", "b", "z", "é", "中", "\ud7ff", "\ue000", "\uffff", "😀", "\ud800\udc00", "\udbff\udfff", "\ud800", "\udc00", "x\ud83d"];
  const check = (keys) => {
    const want = keys.slice().sort(compareUtf8);
    assert.deepEqual(sortUtf8(keys.slice()), want, JSON.stringify(keys));
  };
  for (let t = 0; t < 5000; t++) {
    const n = Math.floor(rnd() * 40);
    check(Array.from({ length: n }, () => Array.from({ length: 1 + Math.floor(rnd() * 4) }, () => pool[Math.floor(rnd() * pool.length)]).join("")));
  }
  // Every key with a surrogate has to move past every key from U+E000 up:
  // more moves than keys, so the insertion gives way to a full sort.
  const many = [];
  for (let i = 0; i < 500; i++) many.push(`\ue000${i}`, `\ud83d\ude00${i}`);
  check(many);
  // Plain keys: the native order is the answer.
  check(Array.from({ length: 3000 }, (_, i) => `key${(i * 7919) % 3000}`));
});
