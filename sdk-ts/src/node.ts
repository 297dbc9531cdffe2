/**
 * The Node entry point: everything of the pure-TS runtime, with verification
 * and JSON transcoding routed through the native core (`native/index.node`,
 * built from the neon crate in `sdk-ts/native`) when it is present and loads.
 * Without it (unsupported platform, not built) the pure-TS versions serve, so
 * the package always works. `backend` says which one is active.
 *
 * Why only these: the benchmarks in docs/benchmarks.md ("TypeScript SDK")
 * measured each operation both ways. Building JS objects from native code costs
 * more than the decoding itself, so `decode`, `encode` and the typed coders
 * stay in TypeScript; verify and JSON work on bytes and strings only and cross
 * the boundary once per message.
 */

import { createRequire } from "node:module";
import { depthLimit } from "./budget.js";
import { fail, FlexError, ErrorKind } from "./error.js";
import * as pure from "./index.js";
import type { FromJsonOptions, ToJsonOptions } from "./json.js";
import type { VerifyOptions } from "./verify.js";
import { bytesOf } from "./reader.js";
import type { BytesLike } from "./reader.js";

export * from "./index.js";

type NativeError = [string, string, number];
interface NativeCore {
  verify(bytes: Uint8Array, maxDepth?: number): null | NativeError;
  toJSON(bytes: Uint8Array, pretty: boolean, nonFinite: string, maxOutputBytes: number): string | NativeError;
  fromJSON(text: string, share: number, maxDepth: number): Uint8Array | NativeError;
}

function load(): NativeCore | null {
  if (typeof process !== "undefined" && process.env && process.env.FLEXBUF_NO_NATIVE) return null;
  try {
    const require = createRequire(import.meta.url);
    return require("../native/index.node") as NativeCore;
  } catch {
    return null;
  }
}

const core = load();

/** `"native"` when the native core serves verify and JSON, else `"pure"`. */
export const backend: "pure" | "native" = core ? "native" : "pure";

function rethrow(e: NativeError): never {
  const [kind, message, offset] = e;
  const err = fail(kind as ErrorKind, message);
  if (offset >= 0) err.offset = offset;
  throw err;
}

/**
 * Throws the native failure `e` for `u8`. The native error's path is text
 * only, so bytes the pure verifier rejects as well get its error instead:
 * the same kind and offset (the two verifiers agree, `verify_sharing.test.mjs`)
 * with the path as segments, as the pure build reports it. Only a failure
 * pays for the second pass.
 */
function rethrowVerified(e: NativeError, u8: Uint8Array, options: VerifyOptions): never {
  pure.verify(u8, options);
  rethrow(e);
}

/** Verifies `bytes` (native core when available); throws a {@link FlexError} naming the problem. */
export function verify(bytes: BytesLike, options: VerifyOptions = {}): Uint8Array {
  if (!core || options.requireSortedKeys === false) return pure.verify(bytes, options);
  const u8 = bytesOf(bytes);
  const r = core.verify(u8, depthLimit(options.maxDepth));
  if (r !== null) rethrowVerified(r, u8, options);
  return u8;
}

/** True when `bytes` pass {@link verify}. */
export function isValid(bytes: BytesLike, options: VerifyOptions = {}): boolean {
  if (core && options.requireSortedKeys !== false) return core.verify(bytesOf(bytes), depthLimit(options.maxDepth)) === null;
  try {
    verify(bytes, options);
    return true;
  } catch (e) {
    if (e instanceof FlexError) return false;
    throw e;
  }
}

/** Verifies `bytes` and writes them as JSON (native core when available). */
export function toJSON(bytes: BytesLike, options: ToJsonOptions = {}): string {
  if (!core || options.verify !== undefined) return pure.toJSON(bytes, options);
  const u8 = bytesOf(bytes);
  const r = core.toJSON(u8, options.pretty ?? false, options.nonFinite ?? "error", options.maxOutputBytes ?? -1);
  if (typeof r !== "string") rethrowVerified(r, u8, {});
  return r;
}

/** Parses JSON text into a FlexBuffer (native core when available); same bytes either way. */
export function fromJSON(text: string, options: FromJsonOptions = {}): Uint8Array {
  if (!core) return pure.fromJSON(text, options);
  const r = core.fromJSON(text, options.share ?? 1, depthLimit(options.maxDepth));
  if (!(r instanceof Uint8Array)) rethrow(r);
  return r;
}
