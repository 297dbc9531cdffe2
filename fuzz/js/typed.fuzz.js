// Jazzer.js fuzz target for the TypeScript coders generated from every
// conformance schema (typed_coders.mjs): the first byte picks the type
// (`CODERS[byte % length]`), the rest is the buffer, decoded three ways: the
// generated `decode<Type>` as is (one checked pass), with `{ keyedOnly: true }`
// (every field by key) and with `{ verify: true }` (the whole buffer verified
// first). Must hold: nothing throws but a FlexError (no RangeError, no
// TypeError, no stack overflow); when `verify` accepts the bytes, the three
// give the same value (compared by its re-encoded bytes) or the same error
// kind and path; when it rejects them, the verifying decode fails. Run: see
// fuzz/README.md.
import * as fb from "../../sdk-ts/dist/index.js";
import { CODERS } from "./typed_coders.mjs";

const hex = (b) => Buffer.from(b.buffer, b.byteOffset, b.length).toString("hex");

function outcome(coder, bytes, options, how) {
  let value;
  try {
    value = coder.decode(bytes, options);
  } catch (e) {
    if (e instanceof fb.FlexError) return `${e.kind} at ${JSON.stringify(e.path)}`;
    throw new Error(`${coder.name} ${how} threw ${e?.name}: ${e?.message}, not a FlexError`, { cause: e });
  }
  return `ok ${hex(coder.encode(value))}`;
}

export function fuzz(data) {
  if (data.length === 0) return;
  const coder = CODERS[data[0] % CODERS.length];
  const bytes = new Uint8Array(data.buffer, data.byteOffset + 1, data.length - 1);
  const onePass = outcome(coder, bytes, undefined, "decode");
  const keyed = outcome(coder, bytes, { keyedOnly: true }, "keyed decode");
  const strict = outcome(coder, bytes, { verify: true }, "verifying decode");
  let valid = true;
  try {
    fb.verify(bytes);
  } catch (e) {
    if (!(e instanceof fb.FlexError)) throw e;
    valid = false;
  }
  if (valid) {
    if (onePass !== strict) throw new Error(`${coder.name}: on a valid buffer decode gave ${onePass}, the verifying decode ${strict}`);
    if (onePass !== keyed) throw new Error(`${coder.name}: on a valid buffer decode gave ${onePass}, the keyed decode ${keyed}`);
  } else if (strict.startsWith("ok")) {
    throw new Error(`${coder.name}: the verifying decode accepted bytes verify rejects`);
  }
}
