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
 * depth, no cycles. Shared offsets stay linear as in the core: a container, map
 * keys vector or long string reached a second time is verified again once and
 * then remembered by (position, type), and each key position is checked once;
 * a tree-shaped buffer pays two bits per byte for this bookkeeping.
 *
 * @throws FlexException with the first problem's kind, offset and path.
 */
public fun verify(buf: ByteArray, options: VerifyOptions = VerifyOptions()): Verified {
    Verifier(buf, minOf(options.maxDepth, 1024), options.requireSortedKeys).run()
    return Verified(buf)
}

/** Strings up to this many bytes are checked again at each reference (as the core's `SHORT`); longer ones once per position and type. */
private const val SHORT_STRING = 32

/** Ints per frame of the verifier's stack of open containers, and where each field of a frame is. */
private const val FRAME = 8
private const val AT = 0
private const val PACKED = 1
private const val WIDTH = 2
private const val SIZE = 3
private const val NEXT = 4
private const val HEIGHT = 5
private const val KEYS_AT = 6
/** The keys vector's width, with [AGAIN] set when the container was reached before. */
private const val KEYS_WIDTH_AGAIN = 7
private const val AGAIN = 0x100

/** Memo tag of "the keys vector of a map, order checked" (no real packed type uses 0xfc-0xff). */
private const val MAP_KEYS = 0xfc

private class Verifier(val buf: ByteArray, val maxDepth: Int, val sorted: Boolean) {
    /**
     * Two bits per buffer position, the two words of each 64-position block
     * side by side: "reached" (containers, long strings, map keys vectors)
     * and "a checked key". A tree-shaped buffer reaches each node once, so
     * this is all it pays: a quarter of a byte per byte, where a table of an
     * `Int` per position (the verifier before this one) took four.
     */
    private val marks = LongArray(2 * (buf.size / 64 + 1))
    /** Results of nodes reached a second time, by (position, packed type): a container's height. */
    private val memo = Memo()
    /**
     * The containers being verified, one frame of [FRAME] ints per depth: position and packed type (a
     * container reached again while open is a cycle), element width, size, keys vector and its width, whether
     * it was reached before, and (saved while a frame above it is open) the next value and the height so far.
     * Grown as deeper levels are opened, up to `maxDepth` frames.
     */
    private var frames = IntArray(FRAME * minOf(maxOf(maxDepth, 0) + 1, 16))

    fun run() {
        val n = buf.size
        if (n < 3) fail(ErrorKind.Truncated, 0)
        val w = buf.u8(n - 1)
        if (w != 1 && w != 2 && w != 4 && w != 8) fail(ErrorKind.BadWidth, n - 1, "root width $w")
        val slot = n - 2 - w
        if (slot < 0) fail(ErrorKind.Truncated, 0)
        value(slot, w, buf.u8(n - 2), n - 2, 0)
    }

    /** Marks [at] reached; returns whether it was already. */
    private fun reach(at: Int): Boolean {
        val i = 2 * (at ushr 6)
        val mask = 1L shl at
        val was = marks[i] and mask != 0L
        marks[i] = marks[i] or mask
        return was
    }

    private fun depthOk(level: Int, at: Int) {
        if (level > maxDepth) fail(ErrorKind.DepthLimit, at, "deeper than $maxDepth")
    }

    /**
     * Verifies the value in the slot at [slot] ([pw] wide) with packed type [packed] at [depth]; returns its
     * container height. Nested containers are walked with the explicit stack of [walk], not by recursion, so
     * a buffer nested to the 1024-level cap needs no more of the thread's stack than a flat one.
     */
    fun value(slot: Int, pw: Int, packed: Int, typeAt: Int, depth: Int): Int {
        val h = step(slot, pw, packed, typeAt, depth)
        return if (h >= 0) h else walk(depth)
    }

    /**
     * [value] of one slot without descending: its height when it is done with (scalars, strings, typed
     * vectors, containers taken from the memo), or -1 when its container was opened as frame [depth] for
     * [walk] to go through.
     */
    private fun step(slot: Int, pw: Int, packed: Int, typeAt: Int, depth: Int): Int {
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
                val n = size(target, w)
                val nul = if (t == T.STRING) 1 else 0
                span(buf, target, n, 1)
                span(buf, target + n, nul, 1)
                if (t == T.STRING) {
                    if (buf[target + n].toInt() != 0) fail(ErrorKind.MissingNul, target + n)
                    // A long string reached again is checked once more, then remembered.
                    val again = n > SHORT_STRING && reach(target)
                    if (again && memo.get(target, packed) >= 0) return 0
                    if (Utf8.invalidAt(buf, target, target + n) >= 0) fail(ErrorKind.InvalidUtf8, target)
                    if (again) memo.put(target, packed, 0)
                }
                return 0
            }
            T.isFixed(t) -> {
                if (T.fixedElement(t) == T.FLOAT && w < 4) fail(ErrorKind.BadWidth, typeAt, "float in $w bytes")
                depthOk(depth + 1, target)
                span(buf, target, T.fixedLength(t), w)
                return 1
            }
            else -> return open(t, target, w, packed, depth)
        }
    }

    /**
     * Vectors (untyped and typed) and maps: verified in full the first time
     * their position is reached, and the second time (when the first may have
     * been as another type, or this is a cycle), then taken from the memo.
     * Returns the height of a container done with here (from the memo, or one
     * with no values to descend into), or -1 when it was opened as frame
     * [depth] for [walk].
     */
    private fun open(t: Int, target: Int, w: Int, packed: Int, depth: Int): Int {
        depthOk(depth + 1, target)
        val again = reach(target)
        if (again) {
            val h = memo.get(target, packed)
            if (h >= 0) {
                depthOk(depth + h, target)
                return h
            }
            for (d in 0 until depth) {
                if (frames[FRAME * d + AT] == target && frames[FRAME * d + PACKED] == packed) fail(ErrorKind.Cycle, target)
            }
        }
        val f = FRAME * depth
        if (f + FRAME > frames.size) frames = frames.copyOf(2 * frames.size)
        frames[f + AT] = target
        frames[f + PACKED] = packed
        val n = size(target, w)
        if (t == T.VECTOR || t == T.MAP) {
            span(buf, target, n, w + 1)
            var keysAt = -1
            var kw = 0
            if (t == T.MAP) {
                val k = mapKeys(target, w, n)
                keysAt = (k ushr 8).toInt()
                kw = (k and 0xff).toInt()
            }
            frames[f + WIDTH] = w
            frames[f + SIZE] = n
            frames[f + KEYS_AT] = keysAt
            frames[f + KEYS_WIDTH_AGAIN] = kw or (if (again) AGAIN else 0)
            return -1
        }
        val height = leafContainer(t, target, w, n)
        if (again) memo.put(target, packed, height)
        return height
    }

    /**
     * Goes through the values of the container opened as frame [base] and of
     * every container opened below it, one frame per level; returns the
     * height of the one at [base]. An error at a value is given the key or
     * index of that value in each open container, innermost first.
     */
    private fun walk(base: Int): Int {
        // The top frame lives in locals; the arrays hold it while a frame above it is open.
        var d = base
        var f = FRAME * d
        var target = frames[f + AT]
        var w = frames[f + WIDTH]
        var n = frames[f + SIZE]
        var i = 0
        var h = 0
        while (true) {
            if (i < n) {
                val typeAt = target + n * w + i
                val packed = buf[typeAt].toInt() and 0xff
                val t = packed ushr 2
                // Scalars stored in the slot are done with here (a float narrower than four bytes goes to
                // `step`, which reports it).
                if (T.isInline(t) && (t != T.FLOAT || w >= 4)) {
                    i++
                    continue
                }
                frames[f + NEXT] = i + 1
                val c = try {
                    step(target + i * w, w, packed, typeAt, d + 1)
                } catch (e: FlexException) {
                    throw unwind(e, d, base)
                }
                i++
                if (c < 0) {
                    frames[f + HEIGHT] = h
                    d++
                    f += FRAME
                    target = frames[f + AT]
                    w = frames[f + WIDTH]
                    n = frames[f + SIZE]
                    i = 0
                    h = 0
                } else if (c > h) {
                    h = c
                }
            } else {
                val closed = h + 1
                if (frames[f + KEYS_WIDTH_AGAIN] and AGAIN != 0) memo.put(target, frames[f + PACKED], closed)
                if (d == base) return closed
                d--
                f -= FRAME
                target = frames[f + AT]
                w = frames[f + WIDTH]
                n = frames[f + SIZE]
                i = frames[f + NEXT]
                h = maxOf(frames[f + HEIGHT], closed)
            }
        }
    }

    /** [e], raised at the value last taken from frame [top], located in frames [top] down to [base]. */
    private fun unwind(e: FlexException, top: Int, base: Int): FlexException {
        var located = e
        for (d in top downTo base) {
            val f = FRAME * d
            located = locate(located, frames[f + KEYS_AT], frames[f + KEYS_WIDTH_AGAIN] and 0xff, frames[f + NEXT] - 1)
        }
        return located
    }

    /** The containers with no values to descend into (keys vectors, typed vectors), [n] long: checked whole; height 1. */
    private fun leafContainer(t: Int, target: Int, w: Int, n: Int): Int =
        when {
            t == T.VECTOR_KEY || t == T.VECTOR_STRING_DEPRECATED -> {
                span(buf, target, n, w)
                for (i in 0 until n) {
                    val k = follow(buf, target + i * w, w)
                    try { key(k) } catch (e: FlexException) { throw e.inIndex(i) }
                }
                1
            }
            // No float is 1 or 2 bytes wide, but an empty vector has no element to
            // misread: the core and the C++ reference accept it (DEVIATIONS.md).
            t == T.VECTOR_FLOAT && w < 4 && n > 0 -> fail(ErrorKind.BadWidth, target, "float in $w bytes")
            t == T.VECTOR_INT || t == T.VECTOR_UINT || t == T.VECTOR_FLOAT || t == T.VECTOR_BOOL -> {
                span(buf, target, n, w)
                1
            }
            else -> fail(ErrorKind.UnknownType, target, "type code $t")
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
        val tag = MAP_KEYS or (kw.countTrailingZeroBits())
        val r = (keys.toLong() shl 8) or kw.toLong()
        val again = reach(keys)
        if (again && memo.get(keys, tag) >= 0) return r
        span(buf, keys, kn, kw)
        var prev = -1
        for (i in 0 until kn) {
            val at = follow(buf, keys + i * kw, kw)
            try { key(at) } catch (e: FlexException) { throw e.inIndex(i) }
            if (sorted && prev >= 0 && KeySort.compareFrom(buf, prev, at) >= 0) fail(ErrorKind.UnsortedKeys, keys + i * kw)
            prev = at
        }
        if (again) memo.put(keys, tag, 0)
        return r
    }

    /** Checks that a NUL-terminated UTF-8 key starts at [at]; each position is scanned once however many maps share the key. */
    private fun key(at: Int) {
        val i = 2 * (at ushr 6) + 1
        val mask = 1L shl at
        if (marks[i] and mask != 0L) return
        val end = keyEnd(buf, at)
        if (Utf8.invalidAt(buf, at, end) >= 0) fail(ErrorKind.InvalidUtf8, at)
        marks[i] = marks[i] or mask
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

/**
 * Heights of nodes reached more than once: an open-addressed table from
 * (position, packed type) to a non-negative value, empty until first used.
 */
private class Memo {
    /** `(position shl 8 or packed) + 1` per slot; 0 marks an empty slot. Length is a power of two. */
    private var keys = LongArray(0)
    private var values = IntArray(0)
    private var used = 0

    /** The value recorded for ([at], [packed]), or -1. */
    fun get(at: Int, packed: Int): Int {
        if (used == 0) return -1
        val key = key(at, packed)
        val mask = keys.size - 1
        var i = home(key, mask)
        while (true) {
            val k = keys[i]
            if (k == 0L) return -1
            if (k == key) return values[i]
            i = (i + 1) and mask
        }
    }

    /** Records [value] for ([at], [packed]), replacing an earlier one. */
    fun put(at: Int, packed: Int, value: Int) {
        if ((used + 1) * 2 > keys.size) grow()
        if (insert(key(at, packed), value)) used++
    }

    private fun insert(key: Long, value: Int): Boolean {
        val mask = keys.size - 1
        var i = home(key, mask)
        while (true) {
            val k = keys[i]
            if (k == 0L || k == key) {
                keys[i] = key
                values[i] = value
                return k == 0L
            }
            i = (i + 1) and mask
        }
    }

    private fun grow() {
        val oldKeys = keys
        val oldValues = values
        val size = maxOf(16, oldKeys.size * 2)
        keys = LongArray(size)
        values = IntArray(size)
        for (j in oldKeys.indices) if (oldKeys[j] != 0L) insert(oldKeys[j], oldValues[j])
    }

    private fun key(at: Int, packed: Int): Long = ((at.toLong() shl 8) or packed.toLong()) + 1

    private fun home(key: Long, mask: Int): Int = ((key * -7046029254386353131L) ushr 32).toInt() and mask
}
