/**
 * JSON transcoding with the Rust core's rules.
 *
 * {@link toJSON}: verifies the buffer, then writes RFC 8259 JSON under an
 * expansion budget: maps become objects, every vector an array, integers are
 * exact (64-bit included), floats use the shortest round-trip form written the
 * way Rust's `{:?}` does (`1.0`, `0.1`, `1e16`, `1.5e-7`), blobs are padded
 * base64, NaN and infinities are an error unless `nonFinite` says otherwise.
 *
 * {@link fromJSON}: streams JSON text into a {@link Builder} with the C++
 * parser's call sequence (object -> map, array -> untyped vector, integer ->
 * int, uint only beyond i64, double beyond u64; other numbers -> double), so
 * its bytes equal the Rust core's `from_json`. Duplicate keys are an error.
 */

import { Builder } from "./builder.js";
import { budgetExceeded, budgetFor, depthLimit } from "./budget.js";
import { fail, FlexError } from "./error.js";
import { Buf, follow, readFloat, readInt, readUInt, readUIntAs, rootSlot } from "./reader.js";
import type { BytesLike } from "./reader.js";
import { fixedElement, fixedLength, isFixedVector, T, typedElement } from "./types.js";
import { readUtf8 } from "./utf8.js";
import { verify, VerifyOptions } from "./verify.js";

/** Options of {@link toJSON}. */
export interface ToJsonOptions {
  /** Indent with two spaces per level. */
  pretty?: boolean;
  /** NaN and infinities: `"error"` (default), `"null"`, or the JS literals (`"literal"`, not valid JSON). */
  nonFinite?: "error" | "null" | "literal";
  /** Verifier settings applied first. */
  verify?: VerifyOptions;
  /** Output budget in bytes (also the cap on values written); default 256 per input byte, at least 1 MiB. */
  maxOutputBytes?: number;
}

/** Options of {@link fromJSON}. */
export interface FromJsonOptions {
  /** Builder sharing flags (default: keys, as C++). */
  share?: number;
  /** Deepest nesting accepted (default 64, at most 1024). */
  maxDepth?: number;
}

/** A float as Rust's `{:?}` writes it: shortest round-trip digits, `.0` on whole numbers, exponent outside [1e-4, 1e16). */
export function formatFloat(f: number): string {
  if (f === 0) return 1 / f < 0 ? "-0.0" : "0.0";
  const a = Math.abs(f);
  if (a >= 1e-4 && a < 1e16) {
    const s = String(f);
    return s.indexOf(".") >= 0 ? s : s + ".0";
  }
  const e = f.toExponential();
  const i = e.indexOf("e");
  const exp = e.charCodeAt(i + 1) === 43 /* + */ ? e.slice(i + 2) : e.slice(i + 1);
  return e.slice(0, i) + "e" + exp;
}

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** Standard padded base64 (RFC 4648). */
export function base64(b: Uint8Array): string {
  let out = "";
  let i = 0;
  for (; i + 2 < b.length; i += 3) {
    const n = (b[i] << 16) | (b[i + 1] << 8) | b[i + 2];
    out += B64[n >> 18] + B64[(n >> 12) & 63] + B64[(n >> 6) & 63] + B64[n & 63];
  }
  if (i + 1 === b.length) {
    const n = b[i] << 16;
    out += B64[n >> 18] + B64[(n >> 12) & 63] + "==";
  } else if (i + 2 === b.length) {
    const n = (b[i] << 16) | (b[i + 1] << 8);
    out += B64[n >> 18] + B64[(n >> 12) & 63] + B64[(n >> 6) & 63] + "=";
  }
  return out;
}

class JsonWriter {
  readonly b: Buf;
  readonly pretty: boolean;
  readonly nonFinite: string;
  nodes: number;
  bytes: number;
  out = "";
  indent = 0;

  constructor(b: Buf, o: ToJsonOptions) {
    this.b = b;
    this.pretty = o.pretty ?? false;
    this.nonFinite = o.nonFinite ?? "error";
    const budget = o.maxOutputBytes !== undefined
      ? { maxNodes: o.maxOutputBytes, maxBytes: o.maxOutputBytes }
      : budgetFor(b.u8.length);
    this.nodes = budget.maxNodes;
    this.bytes = budget.maxBytes;
  }

  emit(s: string): void {
    if ((this.bytes -= s.length) < 0) throw budgetExceeded();
    this.out += s;
  }

  newline(): void {
    if (this.pretty) this.emit("\n" + "  ".repeat(this.indent));
  }

  str(at: number, len: number): string {
    const s = readUtf8(this.b.u8, at, len);
    if (s === undefined) throw fail("InvalidUtf8", "string is not valid UTF-8", at);
    return JSON.stringify(s);
  }

  key(at: number): string {
    const end = this.b.u8.indexOf(0, at);
    return this.str(at, end - at);
  }

  float(f: number, at: number): void {
    if (Number.isFinite(f)) {
      this.emit(formatFloat(f));
      return;
    }
    switch (this.nonFinite) {
      case "null": this.emit("null"); return;
      case "literal": this.emit(Number.isNaN(f) ? "NaN" : f > 0 ? "Infinity" : "-Infinity"); return;
      default: throw fail("NonFiniteFloat", "NaN or infinity has no JSON form", at);
    }
  }

  /** Writes the value in `slot` (width `pw`, packed type `packed`); the buffer is verified. */
  value(slot: number, pw: number, packed: number): void {
    if (--this.nodes < 0) throw budgetExceeded(slot);
    const b = this.b;
    const t = packed >> 2;
    const w = 1 << (packed & 3);
    switch (t) {
      case T.Null: this.emit("null"); return;
      case T.Bool: this.emit(readUInt(b, slot, pw) !== 0 ? "true" : "false"); return;
      case T.Int: this.emit(String(readInt(b, slot, pw))); return;
      case T.UInt: this.emit(String(readUIntAs(b, slot, pw))); return;
      case T.Float: this.float(readFloat(b, slot, pw), slot); return;
      case T.IndirectInt: this.emit(String(readInt(b, follow(b, slot, pw), w))); return;
      case T.IndirectUInt: this.emit(String(readUIntAs(b, follow(b, slot, pw), w))); return;
      case T.IndirectFloat: this.float(readFloat(b, follow(b, slot, pw), w), slot); return;
      case T.Key: this.emit(this.key(follow(b, slot, pw))); return;
      case T.String: {
        const at = follow(b, slot, pw);
        this.emit(this.str(at, readUInt(b, at - w, w)));
        return;
      }
      case T.Blob: {
        const at = follow(b, slot, pw);
        const len = readUInt(b, at - w, w);
        if ((this.bytes -= Math.floor(len * 4 / 3) + 4) < 0) throw budgetExceeded(at);
        this.out += '"' + base64(b.u8.subarray(at, at + len)) + '"';
        return;
      }
      case T.Map: this.map(follow(b, slot, pw), w); return;
      case T.Vector: this.vector(follow(b, slot, pw), w); return;
      default: this.typed(follow(b, slot, pw), t, w);
    }
  }

  map(at: number, w: number): void {
    const b = this.b;
    const len = readUInt(b, at - w, w);
    const keysAt = follow(b, at - 3 * w, w);
    const kw = readUInt(b, at - 2 * w, w);
    this.emit("{");
    this.indent++;
    for (let i = 0; i < len; i++) {
      if (i > 0) this.emit(",");
      this.newline();
      const k = this.key(follow(b, keysAt + i * kw, kw));
      this.emit(k);
      this.emit(this.pretty ? ": " : ":");
      try {
        this.value(at + i * w, w, b.u8[at + len * w + i]);
      } catch (e) {
        throw e instanceof FlexError ? e.within(JSON.parse(k) as string) : e;
      }
    }
    this.indent--;
    if (len > 0) this.newline();
    this.emit("}");
  }

  vector(at: number, w: number): void {
    const b = this.b;
    const len = readUInt(b, at - w, w);
    this.emit("[");
    this.indent++;
    for (let i = 0; i < len; i++) {
      if (i > 0) this.emit(",");
      this.newline();
      try {
        this.value(at + i * w, w, b.u8[at + len * w + i]);
      } catch (e) {
        throw e instanceof FlexError ? e.within(i) : e;
      }
    }
    this.indent--;
    if (len > 0) this.newline();
    this.emit("]");
  }

  typed(at: number, t: number, w: number): void {
    const fixed = isFixedVector(t);
    const elem = fixed ? fixedElement(t) : typedElement(t);
    const len = fixed ? fixedLength(t) : readUInt(this.b, at - w, w);
    // Elements are inline scalars of width `w` (or keys): write them as values.
    const packed = (elem << 2) | (w === 1 ? 0 : w === 2 ? 1 : w === 4 ? 2 : 3);
    this.emit("[");
    this.indent++;
    for (let i = 0; i < len; i++) {
      if (i > 0) this.emit(",");
      this.newline();
      this.value(at + i * w, w, packed);
    }
    this.indent--;
    if (len > 0) this.newline();
    this.emit("]");
  }
}

/** Verifies `bytes` and writes them as JSON text. */
export function toJSON(bytes: BytesLike, options: ToJsonOptions = {}): string {
  const b = new Buf(verify(bytes, options.verify));
  const [slot, w, packed] = rootSlot(b);
  const wr = new JsonWriter(b, options);
  wr.value(slot, w, packed);
  return wr.out;
}

// ---- JSON -> FlexBuffers ---------------------------------------------------------

const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;
const U64_MAX = 2n ** 64n - 1n;

class JsonReader {
  readonly s: string;
  i = 0;
  readonly b: Builder;
  readonly maxDepth: number;
  depth = 0;

  constructor(s: string, b: Builder, maxDepth: number) {
    this.s = s;
    this.b = b;
    this.maxDepth = maxDepth;
  }

  err(msg: string): FlexError {
    let line = 1;
    let col = 1;
    for (let j = 0; j < this.i && j < this.s.length; j++) {
      if (this.s.charCodeAt(j) === 10) {
        line++;
        col = 1;
      } else col++;
    }
    return fail("Json", `${msg} at line ${line} column ${col}`, this.i);
  }

  ws(): void {
    const s = this.s;
    let i = this.i;
    for (;;) {
      const c = s.charCodeAt(i);
      if (c === 32 || c === 10 || c === 13 || c === 9) i++;
      else break;
    }
    this.i = i;
  }

  run(): void {
    this.ws();
    this.value();
    this.ws();
    if (this.i !== this.s.length) throw this.err("unexpected text after the JSON value");
  }

  value(): void {
    const c = this.s.charCodeAt(this.i);
    switch (c) {
      case 123: this.object(); return; // {
      case 91: this.array(); return; // [
      case 34: this.stringValue(); return;
      case 116: this.literal("true"); this.b.bool(true); return;
      case 102: this.literal("false"); this.b.bool(false); return;
      case 110: this.literal("null"); this.b.null(); return;
      default:
        if (c === 45 || (c >= 48 && c <= 57)) {
          this.number();
          return;
        }
        throw this.err(Number.isNaN(c) ? "unexpected end of input" : "expected a JSON value");
    }
  }

  open(): void {
    if (this.depth + 1 > this.maxDepth) throw fail("DepthLimit", `nesting deeper than ${this.maxDepth}`, this.i);
    this.depth++;
  }

  object(): void {
    this.open();
    this.i++;
    this.b.startMap();
    this.ws();
    if (this.s.charCodeAt(this.i) === 125) {
      this.i++;
      this.b.endMap();
      this.depth--;
      return;
    }
    for (;;) {
      if (this.s.charCodeAt(this.i) !== 34) throw this.err("expected a string key");
      const k = this.string();
      this.b.key(k);
      this.ws();
      if (this.s.charCodeAt(this.i) !== 58) throw this.err("expected ':'");
      this.i++;
      this.ws();
      try {
        this.value();
      } catch (e) {
        throw e instanceof FlexError ? e.within(k) : e;
      }
      this.ws();
      const c = this.s.charCodeAt(this.i);
      if (c === 44) {
        this.i++;
        this.ws();
        continue;
      }
      if (c === 125) {
        this.i++;
        try {
          this.b.endMap();
        } catch (e) {
          if (e instanceof FlexError && e.kind === "Builder" && e.detail.startsWith("duplicate key")) {
            this.i--;
            throw this.err(e.detail + " in the object ending");
          }
          throw e;
        }
        this.depth--;
        return;
      }
      throw this.err("expected ',' or '}'");
    }
  }

  array(): void {
    this.open();
    this.i++;
    this.b.startVector();
    this.ws();
    if (this.s.charCodeAt(this.i) === 93) {
      this.i++;
      this.b.endVector();
      this.depth--;
      return;
    }
    for (let n = 0; ; n++) {
      try {
        this.value();
      } catch (e) {
        throw e instanceof FlexError ? e.within(n) : e;
      }
      this.ws();
      const c = this.s.charCodeAt(this.i);
      if (c === 44) {
        this.i++;
        this.ws();
        continue;
      }
      if (c === 93) {
        this.i++;
        this.b.endVector();
        this.depth--;
        return;
      }
      throw this.err("expected ',' or ']'");
    }
  }

  literal(word: string): void {
    if (!this.s.startsWith(word, this.i)) throw this.err("invalid literal");
    this.i += word.length;
  }

  number(): void {
    const s = this.s;
    const start = this.i;
    let i = start;
    if (s.charCodeAt(i) === 45) i++;
    let c = s.charCodeAt(i);
    if (c === 48) i++;
    else if (c >= 49 && c <= 57) {
      do i++; while ((c = s.charCodeAt(i)) >= 48 && c <= 57);
    } else {
      this.i = i;
      throw this.err("invalid number");
    }
    let integer = true;
    if (s.charCodeAt(i) === 46) {
      integer = false;
      i++;
      c = s.charCodeAt(i);
      if (!(c >= 48 && c <= 57)) {
        this.i = i;
        throw this.err("digit expected after '.'");
      }
      while ((c = s.charCodeAt(i)) >= 48 && c <= 57) i++;
    }
    c = s.charCodeAt(i);
    if (c === 101 || c === 69) {
      integer = false;
      i++;
      c = s.charCodeAt(i);
      if (c === 43 || c === 45) i++;
      c = s.charCodeAt(i);
      if (!(c >= 48 && c <= 57)) {
        this.i = i;
        throw this.err("digit expected in exponent");
      }
      while ((c = s.charCodeAt(i)) >= 48 && c <= 57) i++;
    }
    this.i = i;
    const text = s.slice(start, i);
    if (integer) {
      if (i - start <= 15) {
        this.b.int(+text);
        return;
      }
      const big = BigInt(text);
      if (big >= I64_MIN && big <= I64_MAX) {
        this.b.int(big);
        return;
      }
      if (big >= 0n && big <= U64_MAX) {
        this.b.uint(big);
        return;
      }
    }
    const f = +text;
    if (!Number.isFinite(f)) {
      this.i = start;
      throw this.err("number out of range of a double");
    }
    this.b.double(f);
  }

  /** A key (or any string the reader keeps): the string at `this.i`, unescaped. */
  string(): string {
    const start = this.i + 1;
    const end = this.plainEnd(start);
    return this.closes(end) ? this.s.slice(start, end) : this.slowString(start, end);
  }

  /**
   * A string value: pushed straight from the JSON text when it has no
   * escape (no substring made; see `writeUtf8Range` for why), else unescaped.
   */
  stringValue(): void {
    const start = this.i + 1;
    const end = this.plainEnd(start);
    if (this.closes(end)) this.b.stringRange(this.s, start, end);
    else this.b.string(this.slowString(start, end));
  }

  /** Whether a string's plain text ends at its closing quote (`this.i` then moves past it). */
  closes(end: number): boolean {
    if (this.s.charCodeAt(end) !== 34) return false;
    this.i = end + 1;
    return true;
  }

  /**
   * Where the plain text of a string from `start` ends: at its closing
   * quote, or at the first escape, control character, lone surrogate or
   * the end of the input, which `slowString` takes from there.
   */
  plainEnd(start: number): number {
    const s = this.s;
    let i = start;
    for (;;) {
      const c = s.charCodeAt(i);
      if (c === 34 || c === 92 || c < 32 || Number.isNaN(c)) return i;
      if (c >= 0xd800 && c <= 0xdfff) {
        const d = s.charCodeAt(i + 1);
        if (c > 0xdbff || !(d >= 0xdc00 && d <= 0xdfff)) return i;
        i += 2;
        continue;
      }
      i++;
    }
  }

  slowString(start: number, from: number): string {
    const s = this.s;
    let out = s.slice(start, from);
    let i = from;
    for (;;) {
      const c = s.charCodeAt(i);
      if (Number.isNaN(c)) {
        this.i = i;
        throw this.err("unterminated string");
      }
      if (c === 34) {
        this.i = i + 1;
        return out;
      }
      if (c < 32) {
        this.i = i;
        throw this.err("control character in a string");
      }
      if (c >= 0xd800 && c <= 0xdfff) {
        const d = s.charCodeAt(i + 1);
        if (c > 0xdbff || !(d >= 0xdc00 && d <= 0xdfff)) {
          this.i = i;
          throw this.err("lone surrogate in a string");
        }
        out += s[i] + s[i + 1];
        i += 2;
        continue;
      }
      if (c !== 92) {
        out += s[i++];
        continue;
      }
      const e = s.charCodeAt(i + 1);
      i += 2;
      switch (e) {
        case 34: out += '"'; break;
        case 92: out += "\\"; break;
        case 47: out += "/"; break;
        case 98: out += "\b"; break;
        case 102: out += "\f"; break;
        case 110: out += "\n"; break;
        case 114: out += "\r"; break;
        case 116: out += "\t"; break;
        case 117: {
          const u = this.hex4(i);
          i += 4;
          if (u >= 0xd800 && u <= 0xdbff && s.charCodeAt(i) === 92 && s.charCodeAt(i + 1) === 117) {
            const v = this.hex4(i + 2);
            if (v >= 0xdc00 && v <= 0xdfff) {
              out += String.fromCharCode(u, v);
              i += 6;
              break;
            }
          }
          if (u >= 0xd800 && u <= 0xdfff) {
            this.i = i - 6;
            throw this.err("lone surrogate escape in a string");
          }
          out += String.fromCharCode(u);
          break;
        }
        default:
          this.i = i - 2;
          throw this.err("invalid escape");
      }
    }
  }

  hex4(at: number): number {
    const h = this.s.slice(at, at + 4);
    if (!/^[0-9a-fA-F]{4}$/.test(h)) {
      this.i = at;
      throw this.err("invalid \\u escape");
    }
    return parseInt(h, 16);
  }
}

/** Parses JSON text into a FlexBuffer (the same bytes as the Rust core's `from_json`). */
export function fromJSON(text: string, options: FromJsonOptions = {}): Uint8Array {
  const b = new Builder({ share: options.share, initialCapacity: Math.max(256, text.length) });
  new JsonReader(text, b, depthLimit(options.maxDepth)).run();
  return b.finishView();
}

/** Parses JSON text into an existing builder (pushes one value; does not finish). */
export function fromJSONInto(text: string, b: Builder, options: FromJsonOptions = {}): void {
  new JsonReader(text, b, depthLimit(options.maxDepth)).run();
}
