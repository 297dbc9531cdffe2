package dev.flexbuf

/** What a [FlexBuilder] deduplicates, with the C++ `BuilderFlag` numbering. */
public object Share {
    /** Nothing is shared. */
    public const val NONE: Int = 0
    /** Equal keys are written once (the C++ default). */
    public const val KEYS: Int = 1
    /** Equal strings are written once. */
    public const val STRINGS: Int = 2
    /** Keys and strings. */
    public const val KEYS_AND_STRINGS: Int = 3
    /** The C++ key-vector flag, which has no effect there and so none here (see [BuilderOptions.dedupKeyVectors]). */
    public const val KEY_VECTORS: Int = 4
    /** Every flag. */
    public const val ALL: Int = 7
}

/**
 * Builder configuration.
 *
 * @property share sharing flags as in [Share] (default: keys, as in C++).
 * @property dedupKeyVectors reuse one keys vector for every map with the same sorted keys
 *   (an extension: bytes then differ from C++; generated coders use it).
 * @property initialCapacity bytes reserved up front.
 * @property maxRetainedCapacity largest buffer kept across [FlexBuilder.clear]; larger ones are
 *   dropped, and so are a value stack, open-container stack or key and string pool grown past
 *   about as many bytes (one giant payload never pins memory in a reused or pooled builder).
 */
public data class BuilderOptions(
    val share: Int = Share.KEYS,
    val dedupKeyVectors: Boolean = false,
    val initialCapacity: Int = 256,
    val maxRetainedCapacity: Int = 1 shl 20,
) {
    public companion object {
        /** Options for typed encoding: keys shared, key vectors deduplicated (the Rust `typed_builder_options`). */
        public val TYPED: BuilderOptions = BuilderOptions(share = Share.KEYS, dedupKeyVectors = true)
    }
}

/** A value already pushed, to push again with [FlexBuilder.reuseValue]. */
public class ValueHandle internal constructor(internal val data: Long, internal val meta: Int, internal val generation: Long)

/** A keys vector written once and shared by every map of one shape (see [FlexBuilder.keyVector]). */
public class KeyVector internal constructor(internal val data: Long, internal val meta: Int, public val size: Int, internal val generation: Long)

/**
 * Writes FlexBuffers, byte for byte as the C++ reference `flexbuffers::Builder`
 * for the same calls and sharing flags.
 *
 * Values are pushed on a stack; `end*` calls write a container's elements and
 * replace them by one offset value; [finish] writes the root trailer. A builder
 * is not thread-safe: use one per thread, or borrow one from a [BuilderPool].
 *
 * ```
 * val b = FlexBuilder()
 * b.startMap(); b.key("born"); b.int(1815); b.endMap()
 * val bytes = b.finish()
 * ```
 */
public class FlexBuilder(public val options: BuilderOptions = BuilderOptions()) {
    private var buf = ByteArray(maxOf(16, options.initialCapacity))
    private var len = 0

    // The value stack: data (scalar bits or absolute target position) and meta (type shl 2 | log2 width).
    private var sData = LongArray(32)
    private var sMeta = IntArray(32)
    private var sp = 0

    // Sorting map entries: the order found, the entries copied while moved.
    private val keySort = KeySort()
    private var sortOrder = IntArray(16)
    private var movedData = LongArray(32)
    private var movedMeta = IntArray(32)

    // Open containers: stack start * 2 + (1 for a map).
    private var opens = IntArray(16)
    private var openCount = 0

    private var forceMinWidth = 0
    private var scratch = CharArray(64)
    private val keyPool = Pool<String, Int>()
    private val stringPool = Pool<String, Long>()
    private val keyVectors = Pool<KeySig, Long>()
    private var failed: FlexException? = null
    private var finished = false
    private var generation = nextGeneration()

    /** Bytes written so far. */
    public val size: Int get() = len

    /** Current capacity of the internal array (for observing retention). */
    public val capacity: Int get() = buf.size

    /**
     * Bytes held besides the buffer, estimated as [clear] bounds them: the value
     * and open-container stacks, the scratch text and sort arrays, and the pools (by the most
     * entries each has held, whose table a cleared map keeps) (for observing
     * retention).
     */
    public val scratchCapacity: Long
        get() = sData.size.toLong() * STACK_SLOT_BYTES + opens.size * 4L + scratch.size * 2L +
            sortOrder.size * 4L + movedData.size * STACK_SLOT_BYTES + keySort.heapBytes +
            (keyPool.heldEntries + stringPool.heldEntries + keyVectors.heldEntries).toLong() * POOL_ENTRY_BYTES

    /**
     * The internal array. After [finishInPlace], bytes `[0, size)` are the finished
     * buffer; they stay valid only until the next call on this builder (including [clear]).
     */
    public val buffer: ByteArray get() = buf

    /** Resets all state for a new buffer, keeping capacity up to [BuilderOptions.maxRetainedCapacity]. */
    public fun clear() {
        len = 0
        if (buf.size > options.maxRetainedCapacity) buf = ByteArray(maxOf(16, minOf(options.initialCapacity, options.maxRetainedCapacity)))
        if (scratch.size > options.maxRetainedCapacity / 2) scratch = CharArray(64)
        sp = 0
        openCount = 0
        forceMinWidth = 0
        // The stacks and pools are bounded like the buffer: a value stack slot
        // is 12 bytes, an open container 4, a pool entry (its share of the
        // table a cleared HashMap keeps) counted as 16.
        val limit = options.maxRetainedCapacity
        if (sData.size.toLong() * STACK_SLOT_BYTES > limit) {
            sData = LongArray(32)
            sMeta = IntArray(32)
        }
        if (opens.size.toLong() * 4 > limit) opens = IntArray(16)
        if (sortOrder.size * 4L + movedData.size * STACK_SLOT_BYTES > limit) {
            sortOrder = IntArray(16)
            movedData = LongArray(32)
            movedMeta = IntArray(32)
        }
        keySort.bound(limit)
        val poolLimit = limit / POOL_ENTRY_BYTES
        keyPool.clear(poolLimit)
        stringPool.clear(poolLimit)
        keyVectors.clear(poolLimit)
        failed = null
        finished = false
        generation = nextGeneration()
    }

    /** Forces elements of later vectors and maps to at least [bytes] (1, 2, 4 or 8) wide, as `ForceMinimumBitWidth`. */
    public fun forceMinWidth(bytes: Int) {
        forceMinWidth = log2(bytes)
    }

    // ---- scalars ----------------------------------------------------------

    /** Pushes null. */
    public fun nul() { push(0, T.NULL, 0) }

    /** Pushes a boolean. */
    public fun bool(b: Boolean) { push(if (b) 1 else 0, T.BOOL, 0) }

    /** Pushes a signed integer at its minimal width. */
    public fun int(i: Long) { push(i, T.INT, T.widthI(i)) }

    /** Pushes a signed integer at its minimal width. */
    public fun int(i: Int) { push(i.toLong(), T.INT, T.widthI(i.toLong())) }

    /** Pushes an unsigned integer (the bits of [u] read as unsigned) at its minimal width. */
    public fun uint(u: Long) { push(u, T.UINT, T.widthU(u)) }

    /** Pushes an unsigned integer at its minimal width. */
    public fun uint(u: ULong) { uint(u.toLong()) }

    /** Pushes a 32-bit float (always stored with at least 4 bytes). */
    public fun float(f: Float) { push(f.toDouble().toRawBits(), T.FLOAT, 2) }

    /** Pushes a 64-bit float, stored as f32 when that is exact (NaN is always 8 bytes). */
    public fun double(f: Double) { push(f.toRawBits(), T.FLOAT, T.widthF(f)) }

    // ---- keys, strings, blobs ---------------------------------------------

    /** Pushes a map key (or an element of a typed key vector); keys may not contain NUL. */
    public fun key(k: String) {
        check()
        if (options.share and Share.KEYS != 0) {
            val at = keyPool[k]
            if (at != null) { push(at.toLong(), T.KEY, 0); return }
            val loc = writeKey(k)
            keyPool[k] = loc
            push(loc.toLong(), T.KEY, 0)
        } else {
            push(writeKey(k).toLong(), T.KEY, 0)
        }
    }

    /** The text scratch of [Utf8.encodeInto] for [n] chars (it takes one more), grown by doubling. */
    private fun scratchFor(n: Int): CharArray {
        if (scratch.size <= n) scratch = CharArray(maxOf(n + 1, scratch.size * 2))
        return scratch
    }

    private fun writeKey(k: String): Int {
        val n = k.length
        ensure(n * 3 + 1)
        val loc = len
        val end = Utf8.encodeInto(k, buf, loc, scratchFor(n))
        for (i in loc until end) if (buf[i].toInt() == 0) {
            failWith(ErrorKind.Builder, "a key contains NUL")
        }
        buf[end] = 0
        len = end + 1
        return loc
    }

    /**
     * Pushes a UTF-8 string, encoded in one pass straight into the buffer: room
     * for the worst case is reserved, the text is written where a prefix as wide
     * as its length in UTF-16 units needs it (exact for ASCII, and for any text
     * whose UTF-8 length needs the same prefix width), then the prefix. Only a
     * text whose UTF-8 length crosses a width boundary (255, 65,535 bytes) that
     * its UTF-16 length does not is moved once.
     */
    public fun string(s: String) {
        check()
        if (options.share and Share.STRINGS != 0) {
            val hit = stringPool[s]
            if (hit != null) { push(hit ushr 2, T.STRING, (hit and 3).toInt()); return }
        }
        val n = s.length
        val bMax = 1 shl T.widthU(n * 3L)
        ensure(n * 3 + 2 * bMax + 1)
        val start = len
        val wGuess = T.widthU(n.toLong())
        val bGuess = 1 shl wGuess
        var data = start + pad(start, bGuess) + bGuess
        val end = Utf8.encodeInto(s, buf, data, scratchFor(n))
        val byteLen = end - data
        val w = T.widthU(byteLen.toLong())
        if (w != wGuess) {
            // The prefix is wider than guessed: move the text up to its real place (inside the reserve).
            val bw = 1 shl w
            val real = start + pad(start, bw) + bw
            buf.copyInto(buf, real, data, end)
            data = real
        }
        val bw = 1 shl w
        for (i in start until data - bw) buf[i] = 0
        putUint(data - bw, byteLen.toLong(), bw)
        buf[data + byteLen] = 0
        len = data + byteLen + 1
        if (options.share and Share.STRINGS != 0) stringPool[s] = (data.toLong() shl 2) or w.toLong()
        push(data.toLong(), T.STRING, w)
    }

    /** Pushes a string given as UTF-8 bytes (not checked; must be valid UTF-8). */
    public fun stringUtf8(bytes: ByteArray) {
        check()
        if (options.share and Share.STRINGS != 0) {
            val s = Utf8.decode(bytes, 0, bytes.size)
            val hit = stringPool[s]
            if (hit != null) { push(hit ushr 2, T.STRING, (hit and 3).toInt()); return }
            val w = T.widthU(bytes.size.toLong())
            val data = sized(bytes, 0, bytes.size, true, T.STRING)
            stringPool[s] = (data.toLong() shl 2) or w.toLong()
            return
        }
        sized(bytes, 0, bytes.size, true, T.STRING)
    }

    /** Pushes a blob of raw bytes. */
    public fun blob(data: ByteArray, from: Int = 0, to: Int = data.size) {
        check()
        sized(data, from, to, false, T.BLOB)
    }

    private fun sized(data: ByteArray, from: Int, to: Int, nul: Boolean, type: Int): Int {
        val n = to - from
        val w = T.widthU(n.toLong())
        val bw = 1 shl w
        align(bw)
        ensure(bw + n + 1)
        putUint(len, n.toLong(), bw)
        len += bw
        val loc = len
        data.copyInto(buf, loc, from, to)
        len += n
        if (nul) buf[len++] = 0
        push(loc.toLong(), type, w)
        return loc
    }

    // ---- indirect scalars -------------------------------------------------

    /** Pushes a signed integer stored behind an offset. */
    public fun indirectInt(i: Long) { pushIndirect(i, T.INDIRECT_INT, T.widthI(i)) }

    /** Pushes an unsigned integer stored behind an offset. */
    public fun indirectUInt(u: Long) { pushIndirect(u, T.INDIRECT_UINT, T.widthU(u)) }

    /** Pushes a 32-bit float stored behind an offset. */
    public fun indirectFloat(f: Float) { pushIndirect(f.toRawBits().toLong() and 0xffffffffL, T.INDIRECT_FLOAT, 2) }

    /**
     * Pushes a 64-bit float behind an offset, as f32 when exact. Deviation from C++
     * (upstream issue 8340, which writes the low half of the double there).
     */
    public fun indirectDouble(f: Double) {
        if (T.widthF(f) == 2) indirectFloat(f.toFloat()) else pushIndirect(f.toRawBits(), T.INDIRECT_FLOAT, 3)
    }

    private fun pushIndirect(bits: Long, type: Int, w: Int) {
        check()
        val bw = 1 shl w
        align(bw)
        ensure(bw)
        val loc = len
        putUint(loc, bits, bw)
        len += bw
        push(loc.toLong(), type, w)
    }

    // ---- reuse --------------------------------------------------------------

    /** The most recently pushed value, to push again later with [reuseValue]. */
    public fun lastValue(): ValueHandle {
        if (sp == 0) failWith(ErrorKind.Builder, "no value to capture")
        return ValueHandle(sData[sp - 1], sMeta[sp - 1], generation)
    }

    /** Pushes a captured value again; offset values then point at the same bytes. */
    public fun reuseValue(h: ValueHandle) {
        if (h.generation != generation) failWith(ErrorKind.Builder, "stale value handle")
        pushMeta(h.data, h.meta)
    }

    // ---- containers ---------------------------------------------------------

    /** Starts an untyped, typed or fixed vector. */
    public fun startVector() { open(sp * 2) }

    /** Starts a map: push key/value pairs, then [endMap]. */
    public fun startMap() { open(sp * 2 + 1) }

    private fun open(v: Int) {
        if (openCount == opens.size) opens = opens.copyOf(openCount * 2)
        opens[openCount++] = v
    }

    private fun popOpen(map: Boolean): Int {
        check()
        if (openCount == 0 || (opens[openCount - 1] and 1 == 1) != map) failWith(ErrorKind.Builder, "unbalanced end")
        return opens[--openCount] ushr 1
    }

    /** Pushes an empty untyped vector: the bytes of [startVector] then [endVector], in one call. */
    public fun emptyVector() {
        check()
        pushPacked(createVector(sp, 0, 1, false, false, -1L, 0))
    }

    /** Pushes an empty map: the bytes of [startMap] then [endMap], in one call. */
    public fun emptyMap() {
        check()
        // Its empty keys vector (never shared), then the map on it.
        val keys = createVector(sp, 0, 2, true, false, -1L, 0)
        pushPacked(createVector(sp, 0, 2, false, false, keys ushr 8, (keys and 0xff).toInt()))
    }

    /** Ends an untyped vector. */
    public fun endVector() { endVector(typed = false, fixed = false) }

    /** Ends a vector with the C++ `EndVector(start, typed, fixed)` flags. */
    public fun endVector(typed: Boolean, fixed: Boolean) {
        val start = popOpen(false)
        val n = sp - start
        if (typed) checkTyped(start, n, fixed)
        val v = createVector(start, n, 1, typed, fixed, -1L, 0)
        sp = start
        pushPacked(v)
    }

    /** Ends a typed vector (ints, uints, floats, bools or keys; empty is a key vector). */
    public fun endTypedVector() { endVector(typed = true, fixed = false) }

    /** Ends a fixed typed vector of 2, 3 or 4 numbers. */
    public fun endFixedVector() { endVector(typed = true, fixed = true) }

    private fun checkTyped(start: Int, n: Int, fixed: Boolean) {
        if (fixed && n !in 2..4) failWith(ErrorKind.Builder, "fixed vector of length $n")
        if (n == 0) return
        val t = sMeta[start] ushr 2
        val ok = if (fixed) t == T.INT || t == T.UINT || t == T.FLOAT
        else t == T.INT || t == T.UINT || t == T.FLOAT || t == T.BOOL || t == T.KEY
        if (!ok) failWith(ErrorKind.Builder, "typed vector element ${FlexType.fromCode(t)}")
        for (i in start until sp) if (sMeta[i] ushr 2 != t) failWith(ErrorKind.Builder, "mixed typed vector")
    }

    /** Ends a map: sorts entries by key (unsigned bytes), writes keys vector and values. Equal keys are an error. */
    public fun endMap() {
        val start = popOpen(true)
        sortMapEntries(start)
        val n = (sp - start) / 2
        var keys = -1L
        var sig: KeySig? = null
        if (options.dedupKeyVectors && n > 0) {
            sig = keySignature(start, n)
            keys = keyVectors[sig] ?: -1L
        }
        if (keys == -1L) {
            keys = createVector(start, n, 2, true, false, -1L, 0)
            if (options.dedupKeyVectors) keyVectors[sig ?: keySignature(start, n)] = keys
        }
        val m = createVector(start + 1, n, 2, false, false, keys ushr 8, (keys and 0xff).toInt())
        sp = start
        pushPacked(m)
    }

    /** Writes a typed vector of [keys] (strictly ascending by unsigned bytes) for [endMapWithKeys]. */
    public fun keyVector(keys: Array<String>): KeyVector {
        check()
        for (i in 1 until keys.size) {
            if (Utf8.compare(keys[i - 1], keys[i]) >= 0) failWith(ErrorKind.Builder, "keys not strictly ascending: ${keys[i]}")
        }
        val start = sp
        for (k in keys) key(k)
        val v = createVector(start, keys.size, 1, true, false, -1L, 0)
        sp = start
        return KeyVector(v ushr 8, (v and 0xff).toInt(), keys.size, generation)
    }

    /**
     * Writes the names of [keys] one after the other, each with its NUL, in one
     * copy of their precomputed block, then their keys vector, for
     * [endMapWithKeys]. The key pool is neither read nor filled (unlike
     * [keyVector]), so the bytes written depend only on [keys] and the current
     * end of the buffer: this is how generated typed encoders of every language
     * lay out a type's keys (the Rust core's `Builder::key_vector_for`).
     */
    public fun keyVectorFor(keys: WireKeys): KeyVector {
        check()
        if (finished) failWith(ErrorKind.Builder, "already finished")
        val block = keys.block
        val starts = keys.starts
        ensure(block.size)
        val at = len
        block.copyInto(buf, at)
        len = at + block.size
        // The keys vector follows the block, so every element's offset back
        // to its key is known by arithmetic: the width and the elements are
        // written without the value stack (the bytes [createVector] writes).
        val n = starts.size
        val end = len
        var width = maxOf(forceMinWidth, T.widthU(n.toLong()))
        while (width < 3) {
            val w = 1 shl width
            val first = end + pad(end, w) + w
            var widest = 0L
            for (i in 0 until n) widest = maxOf(widest, (first + i * w - (at + starts[i])).toLong())
            if (widest ushr (8 * w) == 0L) break
            width++
        }
        val bw = 1 shl width
        align(bw)
        ensure((n + 1) * bw)
        putUint(len, n.toLong(), bw)
        len += bw
        val loc = len
        for (i in 0 until n) {
            putUint(len, (len - (at + starts[i])).toLong(), bw)
            len += bw
        }
        return KeyVector(loc.toLong(), T.VECTOR_KEY shl 2 or width, n, generation)
    }

    /** Ends a map whose values were pushed, without keys, in the order of [keys]. */
    public fun endMapWithKeys(keys: KeyVector) {
        check()
        if (keys.generation != generation) failWith(ErrorKind.Builder, "stale key vector")
        val start = popOpen(true)
        val n = sp - start
        if (n != keys.size) failWith(ErrorKind.Builder, "map has $n values for ${keys.size} keys")
        val m = createVector(start, n, 1, false, false, keys.data, keys.meta)
        sp = start
        pushPacked(m)
    }

    /**
     * A pool of this builder (keys, strings or keys vectors written): emptied
     * by [clear], and dropped there once it has held more than `limit`
     * entries, since a cleared HashMap keeps the table its peak needed.
     */
    private class Pool<K, V> {
        private var map = HashMap<K, V>()

        /** The most entries held since the map was made. */
        private var peak = 0

        /** Entries whose table the pool holds (for [scratchCapacity]). */
        val heldEntries: Int get() = maxOf(peak, map.size)

        operator fun get(k: K): V? = map[k]

        operator fun set(k: K, v: V) {
            map[k] = v
        }

        fun clear(limit: Int) {
            peak = maxOf(peak, map.size)
            if (peak > limit) {
                map = HashMap()
                peak = 0
            } else if (map.isNotEmpty()) map.clear()
        }
    }

    private class KeySig(val a: LongArray) {
        private val h = a.contentHashCode()
        override fun hashCode(): Int = h
        override fun equals(other: Any?): Boolean = other is KeySig && other.h == h && other.a.contentEquals(a)
    }

    private fun keySignature(start: Int, n: Int): KeySig {
        val shared = options.share and Share.KEYS != 0
        val a = LongArray(if (shared) n else n + 1)
        for (i in 0 until n) {
            val at = sData[start + 2 * i].toInt()
            a[i] = if (shared) at.toLong() else hashKey(at)
        }
        if (!shared) a[n] = -1L
        return KeySig(a)
    }

    private fun hashKey(at: Int): Long {
        var h = -0x340d631b7bdddcdbL
        var i = at
        while (buf[i].toInt() != 0) { h = (h xor (buf[i].toLong() and 0xff)) * 0x100000001b3L; i++ }
        return h xor (i - at).toLong()
    }

    /** Compares the keys at two buffer positions as unsigned bytes (strcmp). */
    private fun compareKeysAt(a: Int, b: Int): Int = KeySort.compareFrom(buf, a, b)

    private fun sortMapEntries(start: Int) {
        val n = sp - start
        if (n % 2 != 0) failWith(ErrorKind.Builder, "map entry ${n / 2} has no value")
        for (i in start until sp step 2) if (sMeta[i] ushr 2 != T.KEY) failWith(ErrorKind.Builder, "map entry ${(i - start) / 2} is not a key")
        var sorted = true
        var i = start + 2
        while (i < sp) {
            val c = compareKeysAt(sData[i - 2].toInt(), sData[i].toInt())
            if (c == 0) failWith(ErrorKind.Builder, "duplicate key ${keyText(sData[i].toInt())}")
            if (c > 0) { sorted = false; break }
            i += 2
        }
        if (sorted) return
        val pairs = n / 2
        if (sortOrder.size < pairs) sortOrder = IntArray(maxOf(pairs, sortOrder.size * 2))
        val order = sortOrder
        val data = sData
        keySort.sort(buf, pairs, order) { data[start + 2 * it].toInt() }
        for (k in 1 until pairs) {
            if (compareKeysAt(data[start + 2 * order[k - 1]].toInt(), data[start + 2 * order[k]].toInt()) == 0) {
                failWith(ErrorKind.Builder, "duplicate key ${keyText(data[start + 2 * order[k]].toInt())}")
            }
        }
        if (movedData.size < n) {
            movedData = LongArray(maxOf(n, movedData.size * 2))
            movedMeta = IntArray(movedData.size)
        }
        sData.copyInto(movedData, 0, start, sp)
        sMeta.copyInto(movedMeta, 0, start, sp)
        for (k in 0 until pairs) {
            val o = order[k]
            sData[start + 2 * k] = movedData[2 * o]; sMeta[start + 2 * k] = movedMeta[2 * o]
            sData[start + 2 * k + 1] = movedData[2 * o + 1]; sMeta[start + 2 * k + 1] = movedMeta[2 * o + 1]
        }
    }

    private fun keyText(at: Int): String {
        var e = at
        while (buf[e].toInt() != 0) e++
        return Utf8.decode(buf, at, e)
    }

    /** The reference's `CreateVector`; returns `position shl 8 | type shl 2 | width`. */
    private fun createVector(start: Int, n: Int, step: Int, typed: Boolean, fixed: Boolean, keysData: Long, keysMeta: Int): Long {
        var width = maxOf(forceMinWidth, T.widthU(n.toLong()))
        var prefix = 1
        if (keysData >= 0) {
            width = maxOf(width, elemWidth(keysData, keysMeta, len, 0))
            prefix += 2
        }
        val end = start + n * step
        var elemType = T.KEY
        val bufLen = len
        var i = start
        while (i < end) {
            val w = elemWidth(sData[i], sMeta[i], bufLen, i - start + prefix)
            if (w > width) width = w
            i += step
        }
        if (typed && n > 0) elemType = sMeta[start] ushr 2
        val bw = 1 shl width
        align(bw)
        ensure((n + 3) * (bw + 1))
        if (keysData >= 0) {
            putUint(len, len - keysData, bw); len += bw
            putUint(len, (1 shl (keysMeta and 3)).toLong(), bw); len += bw
        }
        if (!fixed) { putUint(len, n.toLong(), bw); len += bw }
        val loc = len
        i = start
        while (i < end) {
            writeAny(sData[i], sMeta[i], bw)
            i += step
        }
        if (!typed) {
            i = start
            while (i < end) {
                buf[len++] = storedPacked(sMeta[i], width).toByte()
                i += step
            }
        }
        val type = when {
            keysData >= 0 -> T.MAP
            typed -> T.toTypedVector(elemType, if (fixed) n else 0)
            else -> T.VECTOR
        }
        return (loc.toLong() shl 8) or (type shl 2 or width).toLong()
    }

    // ---- bulk typed vectors ---------------------------------------------------

    private fun beginTyped(n: Int, natural: Int, scanWidth: Int, elem: Int): Int {
        check()
        var w = maxOf(forceMinWidth, T.widthU(n.toLong()))
        if (w < natural && n > 0) w = maxOf(w, scanWidth)
        val bw = 1 shl w
        align(bw)
        ensure(bw * (n + 1))
        putUint(len, n.toLong(), bw)
        len += bw
        push(len.toLong(), if (n == 0) T.VECTOR_KEY else T.toTypedVector(elem, 0), w)
        return bw
    }

    /** Pushes a typed vector of ints at the minimal width (as pushing each and ending a typed vector). */
    public fun typedVector(values: IntArray, unsigned: Boolean = false) {
        var scan = 0
        for (v in values) {
            val w = if (unsigned) T.widthU(v.toLong() and 0xffffffffL) else T.widthI(v.toLong())
            if (w > scan) { scan = w; if (w >= 2) break }
        }
        val bw = beginTyped(values.size, 2, scan, if (unsigned) T.UINT else T.INT)
        for (v in values) { putUint(len, if (unsigned) v.toLong() and 0xffffffffL else v.toLong(), bw); len += bw }
    }

    /** Pushes a typed vector of longs (read as unsigned when [unsigned]) at the minimal width. */
    public fun typedVector(values: LongArray, unsigned: Boolean = false) {
        var scan = 0
        for (v in values) {
            val w = if (unsigned) T.widthU(v) else T.widthI(v)
            if (w > scan) { scan = w; if (w >= 3) break }
        }
        val bw = beginTyped(values.size, 3, scan, if (unsigned) T.UINT else T.INT)
        for (v in values) { putUint(len, v, bw); len += bw }
    }

    /** Pushes a typed vector of shorts at the minimal width. */
    public fun typedVector(values: ShortArray, unsigned: Boolean = false) {
        var scan = 0
        for (v in values) {
            val w = if (unsigned) T.widthU(v.toLong() and 0xffff) else T.widthI(v.toLong())
            if (w > scan) { scan = w; if (w >= 1) break }
        }
        val bw = beginTyped(values.size, 1, scan, if (unsigned) T.UINT else T.INT)
        for (v in values) { putUint(len, if (unsigned) v.toLong() and 0xffff else v.toLong(), bw); len += bw }
    }

    /** Pushes a typed vector of bytes (as numbers, not a blob) at the minimal width. */
    public fun typedVector(values: ByteArray, unsigned: Boolean = false) {
        val bw = beginTyped(values.size, 0, 0, if (unsigned) T.UINT else T.INT)
        if (bw == 1) {
            values.copyInto(buf, len)
            len += values.size
        } else {
            for (v in values) { putUint(len, if (unsigned) v.toLong() and 0xff else v.toLong(), bw); len += bw }
        }
    }

    /** Pushes a typed vector of booleans. */
    public fun typedVector(values: BooleanArray) {
        val bw = beginTyped(values.size, 0, 0, T.BOOL)
        for (v in values) { putUint(len, if (v) 1 else 0, bw); len += bw }
    }

    /** Pushes a typed vector of f64, at 4 bytes when every value is exact in f32. */
    public fun typedVector(values: DoubleArray) {
        var scan = 2
        for (v in values) if (T.widthF(v) == 3) { scan = 3; break }
        val bw = beginTyped(values.size, 3, scan, T.FLOAT)
        for (v in values) {
            if (bw == 8) putUint(len, v.toRawBits(), 8) else putUint(len, v.toFloat().toRawBits().toLong(), 4)
            len += bw
        }
    }

    /** Pushes a typed vector of f32. */
    public fun typedVector(values: FloatArray) {
        val bw = beginTyped(values.size, 2, 2, T.FLOAT)
        for (v in values) {
            // A pushed f32 travels through f64, which quiets a signalling NaN.
            var bits = v.toRawBits()
            if (v.isNaN()) bits = bits or 0x400000
            if (bw == 8) putUint(len, Float.fromBits(bits).toDouble().toRawBits(), 8) else putUint(len, bits.toLong(), 4)
            len += bw
        }
    }

    /**
     * Pushes a typed (or, with [fixed], a fixed-length) vector of [values] at the
     * natural width [natural] bytes, as the C++ `Vector(const T*, len)` and
     * `FixedTypedVector` do. Values are sign- or zero-extended integers, f32 bits
     * (natural 4) or f64 bits (natural 8) for floats, 0/1 for bools.
     */
    public fun scalarVector(elem: FlexType, natural: Int, values: LongArray, fixed: Boolean = false) {
        check()
        val w = log2(natural)
        val t = elem.code
        if (fixed) {
            if (values.size !in 2..4 || t == T.BOOL) failWith(ErrorKind.Builder, "fixed vector of ${values.size} ${elem.wireName}")
        } else if (T.widthU(values.size.toLong()) > w) {
            failWith(ErrorKind.Builder, "length exceeds width")
        }
        align(natural)
        ensure(natural * (values.size + 1))
        if (!fixed) { putUint(len, values.size.toLong(), natural); len += natural }
        val loc = len
        for (v in values) { putUint(len, v, natural); len += natural }
        push(loc.toLong(), T.toTypedVector(t, if (fixed) values.size else 0), w)
    }

    // ---- finishing ---------------------------------------------------------

    /** Writes the root trailer; returns the buffer length. Bytes are `[buffer] [0, size)`, valid until the next call. */
    public fun finishInPlace(): Int {
        check()
        if (finished) failWith(ErrorKind.Builder, "already finished")
        if (sp != 1 || openCount != 0) failWith(ErrorKind.Builder, "root count $sp with $openCount open containers")
        val w = elemWidth(sData[0], sMeta[0], len, 0)
        val bw = 1 shl w
        align(bw)
        ensure(bw + 2)
        writeAny(sData[0], sMeta[0], bw)
        buf[len++] = storedPacked(sMeta[0], 0).toByte()
        buf[len++] = bw.toByte()
        finished = true
        return len
    }

    /** Finishes and returns a copy of the finished bytes. */
    public fun finish(): ByteArray {
        val n = finishInPlace()
        return buf.copyOf(n)
    }

    // ---- internals -----------------------------------------------------------

    private fun check() {
        failed?.let { throw FlexException(it.kind, it.offset, "builder failed earlier: ${it.message}") }
    }

    private fun failWith(kind: ErrorKind, detail: String): Nothing {
        val e = FlexException(kind, -1, detail)
        failed = e
        throw e
    }

    private fun push(data: Long, type: Int, w: Int) = pushMeta(data, (type shl 2) or w)

    private fun pushPacked(v: Long) = pushMeta(v ushr 8, (v and 0xff).toInt())

    private fun pushMeta(data: Long, meta: Int) {
        if (sp == sData.size) {
            sData = sData.copyOf(sp * 2)
            sMeta = sMeta.copyOf(sp * 2)
        }
        sData[sp] = data
        sMeta[sp] = meta
        sp++
    }

    private fun ensure(n: Int) {
        if (len + n > buf.size) {
            var cap = buf.size * 2
            if (cap < len + n) cap = len + n
            buf = buf.copyOf(cap)
        }
    }

    private fun align(bytes: Int) {
        val p = pad(len, bytes)
        if (p > 0) {
            ensure(p)
            for (i in 0 until p) buf[len + i] = 0
            len += p
        }
    }

    private fun putUint(at: Int, v: Long, bytes: Int) {
        var x = v
        for (i in 0 until bytes) {
            buf[at + i] = x.toByte()
            x = x ushr 8
        }
    }

    private fun writeAny(data: Long, meta: Int, bytes: Int) {
        val t = meta ushr 2
        when (t) {
            T.NULL, T.INT, T.UINT, T.BOOL -> putUint(len, data, bytes)
            T.FLOAT -> if (bytes == 8) putUint(len, data, 8)
            else putUint(len, Double.fromBits(data).toFloat().toRawBits().toLong(), 4)
            else -> putUint(len, len - data, bytes)
        }
        len += bytes
    }

    private companion object {
        private var generations = 1L

        /** Bytes of one value stack slot (its data and meta). */
        const val STACK_SLOT_BYTES = 12L

        /** Bytes a pool entry is counted as when [clear] bounds the pools. */
        const val POOL_ENTRY_BYTES = 16

        // Only distinctness matters; a racy increment can at worst repeat a value
        // across two builders, whose handles are never mixed in practice.
        fun nextGeneration(): Long = ++generations

        fun pad(n: Int, align: Int): Int = (-n) and (align - 1)

        fun log2(bytes: Int): Int = when (bytes) {
            1 -> 0
            2 -> 1
            4 -> 2
            8 -> 3
            else -> throw FlexException(ErrorKind.BadWidth, -1, "width $bytes")
        }

        /** Width this value needs as element [index] of a vector written at [bufLen]. */
        fun elemWidth(data: Long, meta: Int, bufLen: Int, index: Int): Int {
            val t = meta ushr 2
            if (T.isInline(t)) return meta and 3
            var bytes = 1
            var w = 0
            while (bytes < 8) {
                val loc = bufLen + pad(bufLen, bytes) + index * bytes
                val off = loc - data
                if (T.widthU(off) <= w) return w
                bytes *= 2
                w++
            }
            return 3
        }

        fun storedPacked(meta: Int, parent: Int): Int {
            val t = meta ushr 2
            val w = if (T.isInline(t)) maxOf(meta and 3, parent) else meta and 3
            return (t shl 2) or w
        }
    }
}
