// The `flexbuf gen --lang ts --ts-int64` policies (coders generated from
// test/int64.fxs into test/int64/<policy>/ by `cargo xtask test`): what each
// decodes a 64-bit field to, that none is silently lossy, and that the
// generated types say which.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as fb from "../dist/index.js";

const dir = new URL("./int64/", import.meta.url);
const auto = await import(new URL("out/auto/int64.js", dir));
const checked = await import(new URL("out/checked/int64.js", dir));
const bigint = await import(new URL("out/bigint/int64.js", dir));
const fields = await import(new URL("out/fields/int64_fields.js", dir));
const source = (policy) => readFileSync(new URL(`${policy}/int64.ts`, dir), "utf8");

const small = { signed: -5, unsigned: 9, maybe: null, offset: 7, series: [1, -2, 3], pair: [4, 5], named: { a: 6 } };
const SAFE = 2 ** 53 - 1;
const bytesOf = (v) => fb.encode(v);
const fails = (f, path) => assert.throws(f, (e) => e instanceof fb.FlexError && e.kind === "OutOfRange" && fb.formatPath(e.path) === path);

test("generated types name the policy", () => {
  assert.match(source("auto"), /\n  signed: number \| bigint;\n  unsigned: number \| bigint;\n/);
  assert.match(source("checked"), /\n  signed: number;\n  unsigned: number;\n  maybe: number \| null;\n/);
  assert.match(source("bigint"), /\n  signed: bigint;\n  unsigned: bigint;\n  maybe: bigint \| null;\n/);
  assert.match(source("bigint"), /series: Array<bigint>;/);
  assert.match(source("bigint"), /named: \{ \[key: string\]: bigint \};/);
});

test("checked: numbers when they fit, OutOfRange beyond 2^53 - 1 (never rounded)", () => {
  assert.deepEqual(checked.decodeCounters(bytesOf(small)), small);
  const edge = checked.decodeCounters(bytesOf({ signed: -SAFE, unsigned: SAFE }));
  assert.equal(edge.signed, -SAFE);
  assert.equal(edge.unsigned, SAFE);
  assert.equal(edge.offset, 7, "default");
  fails(() => checked.decodeCounters(bytesOf({ signed: 2n ** 53n })), "$.signed");
  fails(() => checked.decodeCounters(bytesOf({ signed: -(2n ** 53n) })), "$.signed");
  fails(() => checked.decodeCounters(bytesOf({ unsigned: 2n ** 64n - 1n })), "$.unsigned");
  fails(() => checked.decodeCounters(bytesOf({ maybe: 2n ** 62n })), "$.maybe");
  fails(() => checked.decodeCounters(bytesOf({ series: [1, 2n ** 60n] })), "$.series[1]");
  fails(() => checked.decodeCounters(bytesOf({ named: { k: -(2n ** 63n) } })), "$.named.k");
  fails(() => checked.decodeCounters(bytesOf({ unsigned: -1 })), "$.unsigned");
  // Same bytes as the default policy's encoder.
  assert.deepEqual(checked.encodeCounters(small), auto.encodeCounters(small));
});

test("bigint: always a bigint, exact to the ends of i64 and u64", () => {
  const v = bigint.decodeCounters(bytesOf(small));
  assert.equal(typeof v.signed, "bigint");
  assert.equal(v.signed, -5n);
  assert.equal(v.unsigned, 9n);
  assert.equal(v.offset, 7n, "default is a bigint too");
  assert.deepEqual(v.series, [1n, -2n, 3n]);
  assert.deepEqual(v.pair, [4n, 5n]);
  assert.deepEqual(v.named, { a: 6n });
  const ends = bigint.decodeCounters(bytesOf({ signed: -(2n ** 63n), unsigned: 2n ** 64n - 1n, maybe: 2n ** 63n - 1n }));
  assert.equal(ends.signed, -(2n ** 63n));
  assert.equal(ends.unsigned, 2n ** 64n - 1n);
  assert.equal(ends.maybe, 2n ** 63n - 1n);
  fails(() => bigint.decodeCounters(bytesOf({ signed: 2n ** 63n })), "$.signed");
  fails(() => bigint.decodeCounters(bytesOf({ unsigned: -1 })), "$.unsigned");
  assert.deepEqual(bigint.decodeCounters(bigint.encodeCounters(ends)), ends);
  assert.deepEqual(bigint.encodeCounters(v), auto.encodeCounters(small), "same bytes as the default policy");
});

test("auto (default): a number when safe, a bigint otherwise", () => {
  const v = auto.decodeCounters(bytesOf({ signed: SAFE, unsigned: 2n ** 53n }));
  assert.equal(v.signed, SAFE);
  assert.equal(v.unsigned, 2n ** 53n);
  assert.equal(typeof v.offset, "number");
});

test("checked generation refuses a default a number cannot hold exactly", async () => {
  const { spawnSync } = await import("node:child_process");
  const { mkdtempSync, writeFileSync, rmSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const { join } = await import("node:path");
  const cli = new URL("../../target/debug/flexbuf", import.meta.url).pathname;
  const tmp = mkdtempSync(join(tmpdir(), "flexbuf-int64-"));
  try {
    writeFileSync(join(tmp, "big.fxs"), "namespace t;\nmessage M { x: i64 = 9007199254740993; }\n");
    const run = (policy) => spawnSync(cli, ["gen", "--lang", "ts", "--ts-int64", policy, join(tmp, "big.fxs"), "-o", tmp], { encoding: "utf8" });
    const r = run("checked");
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /M\.x.*beyond 2\^53/);
    assert.equal(run("bigint").status, 0);
    const other = spawnSync(cli, ["gen", "--lang", "rust", "--ts-int64", "checked", join(tmp, "big.fxs"), "-o", tmp], { encoding: "utf8" });
    assert.notEqual(other.status, 0);
    assert.match(other.stderr, /--ts-int64 applies to --lang ts only/);
    assert.match(readFileSync(join(tmp, "big.ts"), "utf8"), /9007199254740993n/);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test("a field's ts_int64 attribute overrides the module policy for that field", () => {
  const src = readFileSync(new URL("fields/int64_fields.ts", dir), "utf8");
  for (const line of ["balance: number;", "id: bigint;", "nonce: number | bigint;", "ceiling: bigint;",
    "history: Array<bigint>;", "limits: { [key: string]: number | bigint };", "parent: bigint | null;", "pair: Array<bigint>;"]) {
    assert.ok(src.includes(`\n  ${line}\n`), line);
  }
  const bytes = (v) => fields.encodeAccount({ balance: 0, id: 0n, nonce: 0, ceiling: 1n, history: [], limits: {}, parent: null, pair: [0n, 0n], ...v });
  const v = fields.decodeAccount(bytes({ balance: -SAFE, id: 2n ** 64n - 1n, nonce: 5, history: [1n, -(2n ** 63n)], limits: { a: 1, b: 2n ** 60n }, parent: 3n, pair: [1n, 2n] }));
  assert.equal(v.balance, -SAFE);
  assert.equal(v.id, 2n ** 64n - 1n);
  assert.equal(v.nonce, 5);
  assert.deepEqual(v.history, [1n, -(2n ** 63n)]);
  assert.deepEqual(v.limits, { a: 1, b: 2n ** 60n });
  assert.equal(v.parent, 3n);
  assert.deepEqual(v.pair, [1n, 2n]);
  assert.equal(fields.decodeAccount(bytes({ id: 7n })).id, 7n, "a small id is still a bigint");
  assert.equal(fields.decodeAccount(bytes({ nonce: 2n ** 62n })).nonce, 2n ** 62n);
  // Absent: the default, as the field's policy types it.
  assert.equal(fields.decodeAccount(fb.encode({})).ceiling, 2n ** 64n - 1n);
  assert.equal(fields.decodeAccount(fb.encode({})).balance, 0);
  // The module's checked policy still guards the field without an attribute.
  fails(() => fields.decodeAccount(bytes({ balance: 2n ** 53n })), "$.balance");
  // The lazy view reads each field with its own policy too.
  const view = fields.AccountView.fromBytes(bytes({ balance: 4, id: 9n, nonce: 2n ** 60n }));
  assert.equal(view.balance, 4);
  assert.equal(view.id, 9n);
  assert.equal(view.nonce, 2n ** 60n);
  assert.deepEqual(fields.decodeAccount(fields.encodeAccount(v)), v);
});
