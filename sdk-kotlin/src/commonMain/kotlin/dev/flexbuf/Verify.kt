package dev.flexbuf

/**
 * Proof that a buffer passed [verify]: its readers skip re-validation.
 *
 * @property bytes the verified buffer (the caller must not mutate it afterwards).
 */
public class Verified internal constructor(public val bytes: ByteArray) {
    /** The root value, as a trusted reader. */
    public fun root(): FlexRef = FlexRef.rootOf(bytes, true)
}

/**
 * Verifier settings.
 *
 * @property maxDepth deepest nesting of vectors and maps accepted (the root container is level 1; capped at 1024).
 * @property requireSortedKeys reject maps whose keys are not strictly ascending.
 */
public data class VerifyOptions(val maxDepth: Int = 64, val requireSortedKeys: Boolean = true)

/**
 * Verifies untrusted [buf] in one pass, linear in its size, with the rules of the
 * Rust core (`verify.rs`): bounds, widths, known types, UTF-8 and NUL of strings
 * and keys, strictly ascending map keys, equal key and value counts, bounded
 * depth, no cycles. Every container, key and string is verified once per
 * (position, type), so heavily shared (DAG) buffers stay linear.
 *
 * @throws FlexException with the first problem's kind, offset and path.
 */
public fun verify(buf: ByteArray, options: VerifyOptions = VerifyOptions()): Verified {
    Verifier(buf, minOf(options.maxDepth, 1024), options.requireSortedKeys).run()
    return Verified(buf)
}

private const val IN_PROGRESS = 1 shl 8
private const val DONE = 2 shl 8
private const val STATE = 3 shl 8

private class Verifier(val buf: ByteArray, val maxDepth: Int, val sorted: Boolean) {
    /** Per position: packed type (bits 0-7), state (8-9), height (16-31); allocated on first use. */
    private var memo: IntArray? = null
    /** Entries for a position already used with a different packed type (rare but legal aliasing). */
    private var extra: HashMap<Long, Int>? = null

    fun run() {
        val n = buf.size
        if (n < 3) fail(ErrorKind.Truncated, 0)
        val w = buf.u8(n - 1)
        if (w != 1 && w != 2 && w != 4 && w != 8) fail(ErrorKind.BadWidth, n - 1, "root width $w")
        val slot = n - 2 - w
        if (slot < 0) fail(ErrorKind.Truncated, 0)
        value(slot, w, buf.u8(n - 2), n - 2, 0)
    }

    /** Returns -1 when fresh (now marked in progress), else the recorded height. */
    private fun enter(at: Int, packed: Int): Int {
        val m = memo ?: IntArray(buf.size).also { memo = it }
        val e = m[at]
        val entry = if (e == 0 || e and 0xff == packed) e else (extra?.get(key(at, packed)) ?: 0)
        return when (entry and STATE) {
            0 -> { store(at, packed, packed or IN_PROGRESS); -1 }
            IN_PROGRESS -> fail(ErrorKind.Cycle, at)
            else -> entry ushr 16
        }
    }

    private fun key(at: Int, packed: Int): Long = (at.toLong() shl 8) or packed.toLong()

    private fun store(at: Int, packed: Int, value: Int) {
        val m = memo!!
        if (m[at] == 0 || m[at] and 0xff == packed) m[at] = value
        else (extra ?: HashMap<Long, Int>().also { extra = it })[key(at, packed)] = value
    }

    private fun leave(at: Int, packed: Int, height: Int) = store(at, packed, packed or DONE or (height shl 16))

    private fun depthOk(level: Int, at: Int) {
        if (level > maxDepth) fail(ErrorKind.DepthLimit, at, "deeper than $maxDepth")
    }

    /** Verifies the value in the slot at [slot] ([pw] wide) with packed type [packed]; returns its container height. */
    fun value(slot: Int, pw: Int, packed: Int, typeAt: Int, depth: Int): Int {
        val t = packed ushr 2
        if (!T.known(t)) fail(ErrorKind.UnknownType, typeAt, "type code $t")
        val w = 1 shl (packed and 3)
        if (T.isInline(t)) {
            if (t == T.FLOAT && pw < 4) fail(ErrorKind.BadWidth, slot, "float in $pw bytes")
            return 0
        }
        val target = follow(buf, slot, pw)
        when {
            t == T.INDIRECT_INT || t == T.INDIRECT_UINT || t == T.INDIRECT_FLOAT -> {
                if (t == T.INDIRECT_FLOAT && w < 4) fail(ErrorKind.BadWidth, typeAt, "float in $w bytes")
                span(buf, target, w, 1)
                return 0
            }
            t == T.KEY -> { key(target); return 0 }
            t == T.STRING || t == T.BLOB -> {
                if (enter(target, packed) >= 0) return 0
                val n = size(target, w)
                val nul = if (t == T.STRING) 1 else 0
                span(buf, target, n, 1)
                span(buf, target + n, nul, 1)
                if (t == T.STRING) {
                    if (buf[target + n].toInt() != 0) fail(ErrorKind.MissingNul, target + n)
                    if (Utf8.invalidAt(buf, target, target + n) >= 0) fail(ErrorKind.InvalidUtf8, target)
                }
                leave(target, packed, 0)
                return 0
            }
            T.isFixed(t) -> {
                if (T.fixedElement(t) == T.FLOAT && w < 4) fail(ErrorKind.BadWidth, typeAt, "float in $w bytes")
                depthOk(depth + 1, target)
                span(buf, target, T.fixedLength(t), w)
                return 1
            }
            else -> return container(t, target, w, packed, depth)
        }
    }

    private fun container(t: Int, target: Int, w: Int, packed: Int, depth: Int): Int {
        depthOk(depth + 1, target)
        val seen = enter(target, packed)
        if (seen >= 0) {
            depthOk(depth + seen, target)
            return seen
        }
        val n = size(target, w)
        val height: Int
        when {
            t == T.VECTOR || t == T.MAP -> {
                span(buf, target, n, w + 1)
                var keysAt = -1
                var kw = 0
                if (t == T.MAP) {
                    val k = mapKeys(target, w, n)
                    keysAt = (k ushr 8).toInt()
                    kw = (k and 0xff).toInt()
                }
                var h = 0
                for (i in 0 until n) {
                    val typeAt = target + n * w + i
                    try {
                        val c = value(target + i * w, w, buf.u8(typeAt), typeAt, depth + 1)
                        if (c > h) h = c
                    } catch (e: FlexException) {
                        throw locate(e, keysAt, kw, i)
                    }
                }
                height = h + 1
            }
            t == T.VECTOR_KEY || t == T.VECTOR_STRING_DEPRECATED -> {
                span(buf, target, n, w)
                for (i in 0 until n) {
                    val k = follow(buf, target + i * w, w)
                    try { key(k) } catch (e: FlexException) { throw e.inIndex(i) }
                }
                height = 1
            }
            // No float is 1 or 2 bytes wide, but an empty vector has no element to
            // misread: the core and the C++ reference accept it (DEVIATIONS.md).
            t == T.VECTOR_FLOAT && w < 4 && n > 0 -> fail(ErrorKind.BadWidth, target, "float in $w bytes")
            t == T.VECTOR_INT || t == T.VECTOR_UINT || t == T.VECTOR_FLOAT || t == T.VECTOR_BOOL -> {
                span(buf, target, n, w)
                height = 1
            }
            else -> fail(ErrorKind.UnknownType, target, "type code $t")
        }
        leave(target, packed, height)
        return height
    }

    private fun locate(e: FlexException, keysAt: Int, kw: Int, i: Int): FlexException {
        if (keysAt >= 0) {
            try {
                val k = follow(buf, keysAt + i * kw, kw)
                val end = keyEnd(buf, k)
                if (Utf8.invalidAt(buf, k, end) < 0) return e.inKey(Utf8.decode(buf, k, end))
            } catch (_: FlexException) {
                // Fall back to the index.
            }
        }
        return e.inIndex(i)
    }

    /** Verifies the keys vector of the map whose values start at [values]; returns `position shl 8 | width`. */
    private fun mapKeys(values: Int, w: Int, n: Int): Long {
        val prefix = values - 3 * w
        if (prefix < 0) fail(ErrorKind.OffsetOutOfBounds, values)
        val keys = follow(buf, prefix, w)
        if (prefix + 2 * w > buf.size) fail(ErrorKind.Truncated, prefix + w)
        val kwl = buf.uintAt(prefix + w, w)
        if (kwl != 1L && kwl != 2L && kwl != 4L && kwl != 8L) fail(ErrorKind.BadWidth, prefix + w, "keys width $kwl")
        val kw = kwl.toInt()
        val kn = size(keys, kw)
        if (kn != n) fail(ErrorKind.KeyValueLengthMismatch, values, "keys $kn, values $n")
        // A tag no real packed type uses: "keys vector of a map, order checked".
        val packed = 0xfc or (kw.countTrailingZeroBits())
        val r = (keys.toLong() shl 8) or kw.toLong()
        if (enter(keys, packed) >= 0) return r
        span(buf, keys, kn, kw)
        var prevAt = -1
        var prevEnd = -1
        for (i in 0 until kn) {
            val at = follow(buf, keys + i * kw, kw)
            val end = try { key(at) } catch (e: FlexException) { throw e.inIndex(i) }
            if (sorted && prevAt >= 0 && compareRanges(prevAt, prevEnd, at, end) >= 0) {
                fail(ErrorKind.UnsortedKeys, keys + i * kw)
            }
            prevAt = at
            prevEnd = end
        }
        leave(keys, packed, 0)
        return r
    }

    private fun compareRanges(a: Int, ae: Int, b: Int, be: Int): Int {
        val la = ae - a
        val lb = be - b
        val n = minOf(la, lb)
        for (k in 0 until n) {
            val x = buf[a + k].toInt() and 0xff
            val y = buf[b + k].toInt() and 0xff
            if (x != y) return x - y
        }
        return la - lb
    }

    /** A NUL-terminated UTF-8 key at [at], verified once per position; returns the NUL's position. */
    private fun key(at: Int): Int {
        val end = keyEnd(buf, at)
        val packed = T.KEY shl 2
        if (enter(at, packed) < 0) {
            if (Utf8.invalidAt(buf, at, end) >= 0) fail(ErrorKind.InvalidUtf8, at)
            leave(at, packed, 0)
        }
        return end
    }

    private fun size(data: Int, w: Int): Int {
        val at = data - w
        if (at < 0) fail(ErrorKind.OffsetOutOfBounds, data)
        if (at + w > buf.size) fail(ErrorKind.Truncated, at)
        val n = buf.uintAt(at, w)
        if (n < 0 || n > buf.size) fail(ErrorKind.SizeOutOfBounds, at)
        return n.toInt()
    }
}
