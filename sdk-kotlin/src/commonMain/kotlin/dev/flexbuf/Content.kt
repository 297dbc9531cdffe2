package dev.flexbuf

/**
 * Equality and hashing of buffer-backed values by content, as the Rust core's
 * `content.rs`: integers by numeric value whatever their width and signedness,
 * floats by value (NaN equals NaN, -0.0 equals 0.0), strings and keys by bytes,
 * vectors element-wise, maps entry-wise in key order. Hashes agree with
 * equality. Bounded by depth and an expansion budget; unreadable values are
 * unequal to everything.
 */
public object Content {
    private const val MAX_DEPTH = 1024

    private fun cls(t: Int): Int = when (t) {
        T.NULL -> 0
        T.BOOL -> 1
        T.INT, T.UINT, T.INDIRECT_INT, T.INDIRECT_UINT -> 2
        T.FLOAT, T.INDIRECT_FLOAT -> 3
        T.STRING, T.KEY -> 4
        T.BLOB -> 5
        T.MAP -> 7
        else -> 6
    }

    /** True when [a] and [b] hold the same logical value. */
    public fun equal(a: FlexRef, b: FlexRef): Boolean = try {
        eq(a, b, 0, Budget.forInput(maxOf(a.buffer.size, b.buffer.size)))
    } catch (_: FlexException) {
        false
    }

    /** A hash agreeing with [equal]. */
    public fun hash(r: FlexRef): Int = try {
        val h = LongArray(1) { 17 }
        hashAt(r, h, 0, Budget.forInput(r.buffer.size))
        (h[0] xor (h[0] ushr 32)).toInt()
    } catch (_: FlexException) {
        0xee
    }

    // Integers as (negative flag, bits) so u64 above Long.MAX_VALUE compares correctly.
    private fun intKey(r: FlexRef): Long = if (r.t == T.UINT || r.t == T.INDIRECT_UINT) r.asULongBits() else r.asLong()
    private fun intNeg(r: FlexRef): Boolean = !(r.t == T.UINT || r.t == T.INDIRECT_UINT) && r.asLong() < 0

    private fun text(r: FlexRef): ByteArray {
        val range = r.bytesRange()
        return r.buffer.copyOfRange((range ushr 32).toInt(), range.toInt())
    }

    private fun eq(a: FlexRef, b: FlexRef, depth: Int, budget: Budget): Boolean {
        budget.node()
        if (depth > MAX_DEPTH) fail(ErrorKind.DepthLimit, a.offset)
        val c = cls(a.t)
        if (c != cls(b.t)) return false
        return when (c) {
            0 -> true
            1 -> a.asBool() == b.asBool()
            2 -> intNeg(a) == intNeg(b) && intKey(a) == intKey(b)
            3 -> { val x = a.asDouble(); val y = b.asDouble(); x == y || (x.isNaN() && y.isNaN()) }
            4, 5 -> { val x = text(a); budget.bytes(x.size.toLong()); x.contentEquals(text(b)) }
            6 -> {
                val x = a.asVector(); val y = b.asVector()
                x.size == y.size && (0 until x.size).all { eq(x[it], y[it], depth + 1, budget) }
            }
            else -> {
                val x = a.asMap(); val y = b.asMap()
                x.size == y.size && (0 until x.size).all {
                    x.key(it) == y.key(it) && eq(x.value(it), y.value(it), depth + 1, budget)
                }
            }
        }
    }

    private fun mix(h: LongArray, v: Long) {
        h[0] = (h[0] xor v) * -0x4b47d5b1b1a1a1a1L
        h[0] = h[0] xor (h[0] ushr 29)
    }

    private fun hashAt(r: FlexRef, h: LongArray, depth: Int, budget: Budget) {
        budget.node()
        if (depth > MAX_DEPTH) fail(ErrorKind.DepthLimit, r.offset)
        val c = cls(r.t)
        mix(h, c.toLong())
        when (c) {
            1 -> mix(h, if (r.asBool()) 1 else 0)
            2 -> { mix(h, if (intNeg(r)) 1 else 0); mix(h, intKey(r)) }
            3 -> {
                val f = r.asDouble()
                mix(h, if (f.isNaN()) Double.NaN.toRawBits() else if (f == 0.0) 0 else f.toRawBits())
            }
            4, 5 -> { val t = text(r); budget.bytes(t.size.toLong()); mix(h, t.contentHashCode().toLong()); mix(h, t.size.toLong()) }
            6 -> { val v = r.asVector(); mix(h, v.size.toLong()); for (i in 0 until v.size) hashAt(v[i], h, depth + 1, budget) }
            7 -> {
                val m = r.asMap(); mix(h, m.size.toLong())
                for (i in 0 until m.size) { mix(h, m.key(i).hashCode().toLong()); hashAt(m.value(i), h, depth + 1, budget) }
            }
        }
    }
}
