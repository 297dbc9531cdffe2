// `npx flexbuf gen` (bin/flexbuf.mjs): the Rust generator through the native
// addon writes what the `flexbuf` CLI writes; schema errors exit 1 with their
// position, bad command lines and a missing addon exit 2 with what to do.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const BIN = fileURLToPath(new URL("../bin/flexbuf.mjs", import.meta.url));

const run = (bin, args, cwd) => spawnSync(process.execPath, [bin, ...args], { cwd, encoding: "utf8" });

function scratch() {
  const dir = mkdtempSync(join(tmpdir(), "flexbuf-gen-cli-"));
  writeFileSync(join(dir, "point.fxs"), "namespace demo;\nmessage Point { x: f64; y: f64; label: string; }\n");
  writeFileSync(join(dir, "bad.fxs"), "message A {\n  x: nosuch;\n}\n");
  return dir;
}

test("gen writes the module the CLI writes", () => {
  const dir = scratch();
  const r = run(BIN, ["gen", "--lang", "ts", "point.fxs", "-o", "src/gen"], dir);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /wrote src\/gen\/point\.ts/);
  const ours = readFileSync(join(dir, "src/gen/point.ts"), "utf8");
  assert.match(ours, /export function decodePoint\(/);
  // The CLI `cargo xtask` built (FLEXBUF_CLI), else the release build's.
  const cli = process.env.FLEXBUF_CLI ?? fileURLToPath(new URL("../../target/release/flexbuf", import.meta.url));
  const c = spawnSync(cli, ["gen", "--lang", "ts", "point.fxs", "-o", "cli"], { cwd: dir, encoding: "utf8" });
  assert.equal(c.status, 0, `${cli}: ${c.stderr ?? c.error}`);
  assert.equal(ours, readFileSync(join(dir, "cli/point.ts"), "utf8"));
  const bigint = run(BIN, ["gen", "--lang", "ts", "--ts-int64", "bigint", "point.fxs", "-o", "b"], dir);
  assert.equal(bigint.status, 0, bigint.stderr);
});

test("a schema error exits 1 naming its position", () => {
  const dir = scratch();
  const r = run(BIN, ["gen", "--lang", "ts", "bad.fxs", "-o", "out"], dir);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /bad\.fxs:2:\d+: error: unknown type `nosuch`/);
});

test("bad command lines exit 2 with the usage", () => {
  const dir = scratch();
  for (const args of [[], ["build"], ["gen", "point.fxs", "-o", "x"], ["gen", "--lang", "ts", "point.fxs"], ["gen", "--lang", "cobol", "point.fxs", "-o", "x"],
    ["gen", "--lang", "python", "--ts-int64", "bigint", "point.fxs", "-o", "x"]]) {
    const r = run(BIN, args, dir);
    assert.equal(r.status, 2, `${args.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, /usage: flexbuf gen/, args.join(" "));
  }
});

test("without the native addon gen says what to use instead", () => {
  // The script alone, in a package directory that has no native/index.node.
  const dir = scratch();
  mkdirSync(join(dir, "pkg/bin"), { recursive: true });
  const bin = join(dir, "pkg/bin/flexbuf.mjs");
  copyFileSync(BIN, bin);
  const r = run(bin, ["gen", "--lang", "ts", "point.fxs", "-o", "out"], dir);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /native addon/);
  assert.match(r.stderr, /python -m flexbuf gen/);
});
