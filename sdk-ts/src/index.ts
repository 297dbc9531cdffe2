/**
 * flexbuf: FlexBuffers for TypeScript.
 *
 * This entry point is the pure-TS runtime and runs anywhere (Node, browsers,
 * Workers, Deno, Bun). On Node, `import "flexbuf"` resolves to `node.js`,
 * which re-exports all of this and routes verification and JSON transcoding
 * through the native core when its addon is present.
 *
 * ```ts
 * import { encode, decode, toJSON } from "flexbuf";
 * const bytes = encode({ id: 7, tags: ["a", "b"] });
 * decode(bytes); // { id: 7, tags: ["a", "b"] }
 * toJSON(bytes); // '{"id":7,"tags":["a","b"]}'
 * ```
 */

export { FlexError, formatPath } from "./error.js";
export type { ErrorKind, PathSegment } from "./error.js";
export { T as FlexType, typeName, TYPE_NAMES } from "./types.js";
export { Builder, KeyLayout, Share } from "./builder.js";
export type { BuilderOptions, KeyVector, ScalarKind, ValueHandle } from "./builder.js";
export { root, Ref, VectorRef, MapRef, Buf, bytesOf } from "./reader.js";
export type { BytesLike, IntMode } from "./reader.js";
export { verify, isValid } from "./verify.js";
export type { VerifyOptions } from "./verify.js";
export { toJSON, fromJSON, fromJSONInto, formatFloat, base64 } from "./json.js";
export type { ToJsonOptions, FromJsonOptions } from "./json.js";
export { encode, decode, pushValue } from "./value.js";
export type { DecodeOptions, EncodeOptions, Encodable, Decoded } from "./value.js";
export { Encoder } from "./encoder.js";
export type { TypedInto } from "./encoder.js";
export { budgetFor } from "./budget.js";
export type { BudgetLimits } from "./budget.js";
export { compareUtf8 } from "./utf8.js";

/** Which implementation serves verify and JSON: always `"pure"` from this entry point. */
export const backend: "pure" | "native" = "pure";
export {
  DecodeContext, EncodeContext, keySet, encodeTyped, decodeTyped, missing, setEntry, sortedKeys, NO_KEYS, checkArray,
} from "./typed.js";
export type { KeySet, TypedDecodeOptions } from "./typed.js";
