// Every conformance category passes on the pure-TS runtime and, when the
// native addon is built, on the native-backed Node entry.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import * as pure from "../dist/index.js";
import { runAll } from "./conformance.mjs";

function assertAllPass(lines) {
  for (const l of lines) {
    assert.deepEqual(l.failures, [], `${l.lang} ${l.category}`);
    assert.equal(l.passed, l.total, `${l.lang} ${l.category}`);
  }
}

test("pure-TS runtime passes bytes, values, invalid and typed", async () => {
  const lines = await runAll(pure, "ts");
  assert.ok(lines.find((l) => l.category === "bytes").total > 400, "the build cases were found");
  assert.ok(lines.find((l) => l.category === "invalid").total > 200, "the invalid corpus was found");
  assertAllPass(lines);
});

test("native-backed Node entry passes the same categories", { skip: !existsSync(new URL("../native/index.node", import.meta.url)) && "native addon not built" }, async () => {
  const node = await import("../dist/node.js");
  assert.equal(node.backend, "native");
  assertAllPass(await runAll(node, "ts-native"));
});
