// Peer column: npm `flatbuffers` (its flexbuffers reader) reading the goldens.
//
// Reads every case of conformance/cases/*.json with toReference() and the
// Reference accessors, rebuilds the annotated notation of
// conformance/README.md, compares it with the case's "value", and prints one
// result line (informational). Map values are looked up by key with
// Reference.get(key), so the library's key search is exercised too.
//
// Usage: node read_goldens.mjs CASES_DIR

import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { toReference } = require('flatbuffers/js/flexbuffers.js');
const { keyForIndex } = require('flatbuffers/js/flexbuffers/reference-util.js');
const { ValueType } = require('flatbuffers/js/flexbuffers/value-type.js');

const LANG = 'npm flatbuffers (peer)';
const INLINE = new Set(['null', 'bool', 'int', 'uint', 'float']);

function annotate(ref) {
  // Fields are TypeScript-private but plain properties at run time.
  const name = ValueType[ref.valueType].toLowerCase();
  let width;
  if (INLINE.has(name)) width = 1 << ref.parentWidth;
  else if (name === 'key') width = 1;
  else width = ref.byteWidth;
  let payload;
  if (ref.isNull()) payload = null;
  else if (ref.isBool()) payload = ref.boolValue();
  else if (ref.isFloat()) payload = ref.floatValue();
  else if (ref.isNumber()) payload = String(ref.intValue());
  else if (ref.isBlob()) payload = Buffer.from(ref.blobValue()).toString('hex');
  else if (ref.isString()) payload = ref.stringValue();
  else if (ref.isMap()) {
    payload = [];
    for (let i = 0; i < ref.length(); i++) {
      const key = keyForIndex(i, ref.dataView, ref.offset, ref.parentWidth, ref.byteWidth);
      payload.push([key, annotate(ref.get(key))]);
    }
  } else if (ref.isVector()) {
    payload = [];
    for (let i = 0; i < ref.length(); i++) payload.push(annotate(ref.get(i)));
  } else {
    throw new Error(`unhandled type ${name}`);
  }
  return [name, width, payload];
}

function sameFloat(got, want) {
  const w = want === 'nan' ? NaN : want === 'inf' ? Infinity : want === '-inf' ? -Infinity : Number(want);
  if (Number.isNaN(w)) return Number.isNaN(got);
  return Object.is(got, w);
}

function same(got, want) {
  if (!Array.isArray(want) || want.length !== 3 || !Array.isArray(got)) return got === want;
  const [name, width, payload] = want;
  if (got[0] !== name || got[1] !== width) return false;
  if (name === 'float' || name === 'indirect_float') return sameFloat(got[2], payload);
  if (name === 'map') {
    return got[2].length === payload.length &&
      got[2].every((g, i) => g[0] === payload[i][0] && same(g[1], payload[i][1]));
  }
  if (Array.isArray(payload)) {
    return got[2].length === payload.length && got[2].every((g, i) => same(g, payload[i]));
  }
  return got[2] === payload;
}

function main() {
  const dir = process.argv[2];
  let passed = 0;
  let total = 0;
  const failures = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
    const doc = JSON.parse(readFileSync(join(dir, file), 'utf8'));
    for (const c of doc.cases) {
      total++;
      let message;
      try {
        const bytes = Buffer.from(c.bytes, 'hex');
        const buf = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length);
        const got = annotate(toReference(buf));
        if (same(got, c.value)) {
          passed++;
          continue;
        }
        const text = JSON.stringify(got, (_, v) => (typeof v === 'bigint' ? v.toString() : v));
        message = `peer reads ${text.slice(0, 300)}`;
      } catch (e) {
        message = `peer failed: ${e}`;
      }
      if (failures.length < 50) failures.push(`${c.name}: ${message}`);
    }
  }
  console.log(JSON.stringify({
    lang: LANG, category: 'values identical', passed, total, failures, informational: true,
  }));
}

main();
