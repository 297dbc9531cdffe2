/** The expansion budget: a cap on what turning a buffer into a tree may produce. */

import { fail } from "./error.js";

/** Limits on the nodes and output bytes of one expansion. */
export interface BudgetLimits {
  /** Most values produced. */
  maxNodes: number;
  /** Most string, key and blob bytes (or output bytes) produced. */
  maxBytes: number;
}

/** Nodes allowed per input byte by {@link budgetFor}. */
export const NODES_PER_INPUT_BYTE = 64;
/** Output bytes allowed per input byte by {@link budgetFor}. */
export const BYTES_PER_INPUT_BYTE = 256;

/**
 * The default budget for `len` input bytes, as in the Rust core: 64 nodes and
 * 256 output bytes per input byte, with floors of 64 Ki nodes and 1 MiB.
 * Shared offsets can make a small buffer describe an exponentially large tree;
 * this stops its expansion with a `BudgetExceeded` error.
 */
export function budgetFor(len: number): BudgetLimits {
  return {
    maxNodes: Math.max(len * NODES_PER_INPUT_BYTE, 1 << 16),
    maxBytes: Math.max(len * BYTES_PER_INPUT_BYTE, 1 << 20),
  };
}

/**
 * The deepest nesting any reader or writer here accepts, whatever its
 * `maxDepth` option says (the Rust core's cap): each level is a few frames
 * of JS recursion, and a cyclic buffer or object taken deeper than this
 * overflowed the stack with a `RangeError` instead of failing cleanly.
 */
export const MAX_DEPTH = 1024;

/**
 * A `maxDepth` option as the limit applied: 64 when absent, at most
 * {@link MAX_DEPTH}. NaN, or anything not a number, is a `TypeError`: it
 * would pass every depth check.
 */
export function depthLimit(requested: number | undefined): number {
  const d = requested ?? 64;
  if (typeof d !== "number" || Number.isNaN(d)) throw new TypeError(`maxDepth must be a number, not ${String(d)}`);
  return Math.min(d, MAX_DEPTH);
}

/** The error every budget check throws. */
export function budgetExceeded(offset?: number): Error {
  return fail("BudgetExceeded", "expansion budget exceeded", offset);
}
