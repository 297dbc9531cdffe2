// Hostile input stays bounded (issue 18): DAG bombs and 1,000-deep nesting end
// in a clean FlexError within a second, and the process's peak resident memory
// grows by less than a limit. node --test runs each file in its own process,
// so the peak measured here is this file's.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync, existsSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import * as pure from "../dist/index.js";

// Garbage is collected after each refused call, so the peak measures the
// worst single call rather than how long V8 let earlier calls' garbage lie.
setFlagsFromString("--expose-gc");
const collect = runInNewContext("gc");

const here = dirname(fileURLToPath(import.meta.url));
const invalid = join(here, "..", "..", "conformance", "invalid");
const read = (name) => new Uint8Array(readFileSync(join(invalid, name)));
const bombs = readdirSync(invalid).filter((f) => f.startsWith("dag_bomb_") && f.endsWith(".bin")).sort();
const SECONDS = 1;
const MEGABYTES = 64;

const entries = [["pure", pure]];
if (existsSync(join(here, "..", "native", "index.node"))) entries.push(["node", await import("../dist/node.js")]);

const peakKb = () => process.resourceUsage().maxRSS;
const baseline = peakKb();

/** Runs `f`, which must throw a FlexError of `kind` within a second; returns nothing. */
function refuses(fb, what, f, kind) {
  const start = performance.now();
  let error = null;
  try {
    f();
  } catch (e) {
    error = e;
  }
  const seconds = (performance.now() - start) / 1000;
  collect();
  assert.ok(error, `${what} succeeded`);
  assert.ok(error instanceof fb.FlexError, `${what} threw a foreign ${error}`);
  if (kind) assert.equal(error.kind, kind, `${what}: ${error.message}`);
  assert.ok(seconds < SECONDS, `${what} took ${seconds.toFixed(3)} s`);
}

function walk(r, depth = 0) {
  if (r.typeName === "map") {
    const m = r.asMap();
    for (let i = 0; i < m.length; i++) walk(m.value(i), depth + 1);
  } else if (r.typeName === "vector" || r.typeName.startsWith("vector_")) {
    const v = r.asVector();
    for (let i = 0; i < v.length; i++) walk(v.get(i), depth + 1);
  }
}

for (const [label, fb] of entries) {
  test(`${label}: DAG bombs verify but expansion fails on the budget`, () => {
    assert.ok(bombs.length >= 5);
    for (const name of bombs) {
      const bytes = read(name);
      fb.verify(bytes);
      refuses(fb, `${name} decode`, () => fb.decode(bytes), "BudgetExceeded");
      refuses(fb, `${name} toJSON`, () => fb.toJSON(bytes), "BudgetExceeded");
    }
  });

  test(`${label}: a buffer nested 1,000 deep is rejected`, () => {
    const bytes = read("depth_bomb_1000_vectors.bin");
    refuses(fb, "verify", () => fb.verify(bytes), "DepthLimit");
    refuses(fb, "decode", () => fb.decode(bytes), "DepthLimit");
    refuses(fb, "toJSON", () => fb.toJSON(bytes), "DepthLimit");
    // The checked reader follows 1,000 offsets without verifying; a walk of it
    // must end in a FlexError or finish, never overflow the stack.
    const start = performance.now();
    try {
      walk(fb.root(bytes));
    } catch (e) {
      assert.ok(e instanceof fb.FlexError, `checked walk threw ${e}`);
    }
    assert.ok(performance.now() - start < SECONDS * 1000);
  });

  test(`${label}: JSON text and JavaScript values nested 1,000 deep are refused`, () => {
    const text = "[".repeat(1000) + "]".repeat(1000);
    refuses(fb, "fromJSON", () => fb.fromJSON(text), "DepthLimit");
    let deep = [];
    for (let i = 0; i < 1000; i++) deep = [deep];
    refuses(fb, "encode", () => fb.encode(deep));
  });
}

test("peak memory stayed within the limit", () => {
  const grew = (peakKb() - baseline) / 1024;
  assert.ok(grew < MEGABYTES, `peak RSS grew by ${grew.toFixed(1)} MB`);
});
