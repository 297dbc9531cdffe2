/**
 * Errors: one class, {@link FlexError}, whose `kind` names what went wrong with
 * the same names as the Rust core's `ErrorKind` variants, plus the byte offset
 * and the path (`$.items[3].name`) where it happened.
 */

/** What went wrong; the names match the Rust core's `ErrorKind` variants. */
export type ErrorKind =
  | "Truncated"
  | "OffsetOutOfBounds"
  | "BadWidth"
  | "UnknownType"
  | "SizeOutOfBounds"
  | "DepthLimit"
  | "Cycle"
  | "InvalidUtf8"
  | "MissingNul"
  | "UnsortedKeys"
  | "KeyValueLengthMismatch"
  | "TypeMismatch"
  | "OutOfRange"
  | "ArrayLength"
  | "IndexOutOfBounds"
  | "KeyNotFound"
  | "BudgetExceeded"
  | "Builder"
  | "Json"
  | "NonFiniteFloat"
  | "Schema"
  | "MissingField"
  | "UnexpectedNull"
  | "UnknownEnumValue"
  | "UnknownUnionVariant"
  | "UnionEntryCount"
  | "Unsupported";

/** One step of an error path: a map key or a vector index. */
export type PathSegment = string | number;

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Renders a path the way the Rust core does: `$.a[2]["odd key"]`. */
export function formatPath(path: readonly PathSegment[]): string {
  let out = "$";
  for (const seg of path) {
    if (typeof seg === "number") out += `[${seg}]`;
    else if (IDENT.test(seg)) out += `.${seg}`;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out;
}

/** An error from reading, verifying, building, transcoding or typed decoding. */
export class FlexError extends Error {
  /** The error kind (Rust `ErrorKind` variant name). */
  readonly kind: ErrorKind;
  /** Byte offset in the buffer (or JSON text) where it was found, if known. */
  offset: number | undefined;
  /** Path from the root to the failing value, outermost first. */
  readonly path: PathSegment[];
  /** The bare description, without path and offset. */
  readonly detail: string;

  constructor(kind: ErrorKind, detail: string, offset?: number) {
    super(detail);
    this.name = "FlexError";
    this.kind = kind;
    this.detail = detail;
    this.offset = offset;
    this.path = [];
    this.refresh();
  }

  /** Prepends a path segment (errors travel from the leaf up); returns `this`. */
  within(seg: PathSegment): this {
    this.path.unshift(seg);
    this.refresh();
    return this;
  }

  /** Sets the offset when none is known yet; returns `this`. */
  at(offset: number): this {
    if (this.offset === undefined) {
      this.offset = offset;
      this.refresh();
    }
    return this;
  }

  private refresh(): void {
    let m = this.detail;
    if (this.path.length > 0) m += ` at ${formatPath(this.path)}`;
    if (this.offset !== undefined) m += ` (offset ${this.offset})`;
    this.message = m;
  }
}

/** Shorthand for `new FlexError(kind, detail, offset)`. */
export function fail(kind: ErrorKind, detail: string, offset?: number): FlexError {
  return new FlexError(kind, detail, offset);
}
