// fromJSON against the C++ reference's JSON parser: the committed documents
// of conformance/json/documents.json (edge numbers, escapes and random
// documents with the bytes libflatbuffers' ParseFlexBuffer makes of each),
// on the pure-TS runtime and, when the native addon is built, the Node entry.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import * as pure from "../dist/index.js";

const file = JSON.parse(readFileSync(new URL("../../conformance/json/documents.json", import.meta.url), "utf8"));

function hex(bytes) {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");
}

function check(lib) {
  assert.ok(file.cases.length >= 400, `${file.cases.length} documents`);
  for (const { text, hex: expected } of file.cases) {
    assert.equal(hex(lib.fromJSON(text)), expected, text);
  }
}

test("pure-TS fromJSON writes the C++ parser's bytes", () => check(pure));

test("the Node entry's fromJSON writes the same bytes", { skip: !existsSync(new URL("../native/index.node", import.meta.url)) && "native addon not built" }, async () => {
  check(await import("../dist/node.js"));
});
