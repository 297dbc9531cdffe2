// Every reader and writer with a depth limit, at the cap of 1024 levels and
// one past it, in Node's main thread and in worker threads of small stacks:
// the result, or a FlexError(DepthLimit), never a RangeError from the engine's
// stack (the Kotlin verifier overflowed a 1 MB thread stack at this cap).
import { test } from "node:test";
import assert from "node:assert/strict";
import { Worker } from "node:worker_threads";

const body = `
const { Builder, verify, decode, toJSON, fromJSON, encode, FlexError } = await import(${JSON.stringify(
  new URL("../dist/index.js", import.meta.url).href,
)});
const { parentPort } = await import("node:worker_threads");
function nested(levels) {
  const b = new Builder();
  for (let i = 0; i < levels; i++) b.startVector();
  b.int(7);
  for (let i = 0; i < levels; i++) b.endVector();
  return b.finish();
}
function arrays(levels) {
  let v = 7;
  for (let i = 0; i < levels; i++) v = [v];
  return v;
}
const out = {};
for (const levels of [1024, 1025]) {
  const buf = nested(levels);
  const o = { maxDepth: 1024 };
  const cases = {
    verify: () => verify(buf, o),
    decode: () => decode(buf, o),
    toJSON: () => toJSON(buf, { verify: o }),
    fromJSON: () => fromJSON("[".repeat(levels) + "7" + "]".repeat(levels), o),
    encode: () => encode(arrays(levels), o),
  };
  for (const [name, f] of Object.entries(cases)) {
    try {
      f();
      out[name + "@" + levels] = "ok";
    } catch (e) {
      out[name + "@" + levels] = e instanceof FlexError ? "FlexError:" + e.kind : e.constructor.name + ": " + e.message;
    }
  }
}
parentPort.postMessage(out);
`;

/** Runs the checks in a worker with `stackSizeMb` of stack; resolves to their outcomes. */
function outcomes(stackSizeMb) {
  return new Promise((resolve, reject) => {
    const w = new Worker(body, { eval: true, type: "module", resourceLimits: { stackSizeMb } });
    w.once("message", resolve);
    w.once("error", reject);
  });
}

const expected = {
  "verify@1024": "ok",
  "decode@1024": "ok",
  "toJSON@1024": "ok",
  "fromJSON@1024": "ok",
  "encode@1024": "ok",
  "verify@1025": "FlexError:DepthLimit",
  "decode@1025": "FlexError:DepthLimit",
  "toJSON@1025": "FlexError:DepthLimit",
  "fromJSON@1025": "FlexError:DepthLimit",
  "encode@1025": "FlexError:DepthLimit",
};

for (const mb of [1, 4]) {
  test(`nesting at the 1024-level cap ends cleanly on a ${mb} MB worker stack`, async () => {
    assert.deepEqual(await outcomes(mb), expected);
  });
}
