/** Wire-format constants: type codes, widths and their helpers. */

/** FlexBuffers type codes (the high six bits of a packed type byte). */
export const enum T {
  Null = 0,
  Int = 1,
  UInt = 2,
  Float = 3,
  Key = 4,
  String = 5,
  IndirectInt = 6,
  IndirectUInt = 7,
  IndirectFloat = 8,
  Map = 9,
  Vector = 10,
  VectorInt = 11,
  VectorUInt = 12,
  VectorFloat = 13,
  VectorKey = 14,
  VectorStringDeprecated = 15,
  VectorInt2 = 16,
  VectorUInt2 = 17,
  VectorFloat2 = 18,
  VectorInt3 = 19,
  VectorUInt3 = 20,
  VectorFloat3 = 21,
  VectorInt4 = 22,
  VectorUInt4 = 23,
  VectorFloat4 = 24,
  Blob = 25,
  Bool = 26,
  VectorBool = 36,
}

/** Type names as the Rust core and the conformance files spell them, by code. */
export const TYPE_NAMES: Readonly<Record<number, string>> = {
  0: "null", 1: "int", 2: "uint", 3: "float", 4: "key", 5: "string",
  6: "indirect_int", 7: "indirect_uint", 8: "indirect_float", 9: "map",
  10: "vector", 11: "vector_int", 12: "vector_uint", 13: "vector_float",
  14: "vector_key", 15: "vector_string_deprecated", 16: "vector_int2",
  17: "vector_uint2", 18: "vector_float2", 19: "vector_int3", 20: "vector_uint3",
  21: "vector_float3", 22: "vector_int4", 23: "vector_uint4", 24: "vector_float4",
  25: "blob", 26: "bool", 36: "vector_bool",
};

/** The public name of a type code (e.g. `"vector_int"`), `"unknown(N)"` otherwise. */
export function typeName(code: number): string {
  return TYPE_NAMES[code] ?? `unknown(${code})`;
}

/** True for type codes the format defines. */
export function isKnownType(code: number): boolean {
  return code <= 26 || code === 36;
}

/** Null, int, uint, float, bool: stored in the slot itself. */
export function isInline(code: number): boolean {
  return code <= 3 || code === 26;
}

/** Typed vectors with a size prefix (11..15 and 36). */
export function isTypedVector(code: number): boolean {
  return (code >= 11 && code <= 15) || code === 36;
}

/** Fixed typed vectors (16..24). */
export function isFixedVector(code: number): boolean {
  return code >= 16 && code <= 24;
}

/** Element type of a typed vector. */
export function typedElement(code: number): number {
  if (code === 36) return T.Bool;
  if (code === 15) return T.Key;
  return code - 10;
}

/** Element type of a fixed vector (int, uint or float). */
export function fixedElement(code: number): number {
  return ((code - 16) % 3) + 1;
}

/** Length of a fixed vector (2, 3 or 4). */
export function fixedLength(code: number): number {
  return (((code - 16) / 3) | 0) + 2;
}

/** Log2 width (0..3) an unsigned value needs; accepts numbers up to 2^64. */
export function widthOfUInt(u: number): number {
  if (u <= 0xff) return 0;
  if (u <= 0xffff) return 1;
  if (u <= 0xffffffff) return 2;
  return 3;
}

/** Log2 width (0..3) a signed value needs (two's complement). */
export function widthOfInt(i: number): number {
  if (i >= -0x80 && i <= 0x7f) return 0;
  if (i >= -0x8000 && i <= 0x7fff) return 1;
  if (i >= -0x80000000 && i <= 0x7fffffff) return 2;
  return 3;
}

/** 2 (4 bytes) when the double survives a round trip through f32, else 3 (NaN: 3). */
export function widthOfDouble(f: number): number {
  return Math.fround(f) === f ? 2 : 3;
}

/**
 * True when the host's typed arrays are little-endian, as FlexBuffers is:
 * typed-array views of the bytes then read its numbers as stored.
 */
export const HOST_LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
