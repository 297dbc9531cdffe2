package dev.flexbuf

/**
 * One value inside a FlexBuffer: a position, the width of its slot and its packed type.
 *
 * Readers from [FlexRef.root] are *checked*: every offset, size and UTF-8
 * sequence is validated as it is read, so untrusted bytes can never make them
 * read out of bounds or hang (errors are [FlexException]s). Readers from
 * [Verified.root] are *trusted*: the verifier already proved the buffer, so
 * string decoding skips UTF-8 validation.
 */
public class FlexRef internal constructor(
    /** The whole buffer this value lives in. */
    public val buffer: ByteArray,
    /** Offset of the value's slot. */
    public val offset: Int,
    /** Width of the slot in bytes (the parent's element width). */
    public val slotWidth: Int,
    internal val t: Int,
    /** Width from the packed type: a scalar's stored width, or a container's element/size width. */
    public val width: Int,
    /** True when this reader came from a verified buffer. */
    public val trusted: Boolean,
) {
    /** The value's type. */
    public val type: FlexType get() = FlexType.fromCode(t)!!

    /** True for null. */
    public val isNull: Boolean get() = t == T.NULL

    /** True for inline and indirect floats. */
    public val isFloat: Boolean get() = t == T.FLOAT || t == T.INDIRECT_FLOAT

    private fun mismatch(expected: String): Nothing =
        fail(ErrorKind.TypeMismatch, offset, "expected $expected, found ${type.wireName}")

    /** Absolute position the value's offset points at (for offset types). */
    public fun dataOffset(): Int = follow(buffer, offset, slotWidth)

    /** A boolean. */
    public fun asBool(): Boolean = if (t == T.BOOL) buffer.uintAt(offset, slotWidth) != 0L else mismatch("bool")

    /** A signed integer of any integer type (unsigned values above `Long.MAX_VALUE` are out of range). */
    public fun asLong(): Long = when (t) {
        T.INT -> buffer.intAt(offset, slotWidth)
        T.UINT -> buffer.uintAt(offset, slotWidth).also { if (it < 0) fail(ErrorKind.OutOfRange, offset) }
        T.INDIRECT_INT -> { val d = dataOffset(); span(buffer, d, 1, width); buffer.intAt(d, width) }
        T.INDIRECT_UINT -> { val d = dataOffset(); span(buffer, d, 1, width); buffer.uintAt(d, width).also { if (it < 0) fail(ErrorKind.OutOfRange, offset) } }
        else -> mismatch("integer")
    }

    /** An unsigned integer of any integer type, as raw 64 bits (negative signed values are out of range). */
    public fun asULongBits(): Long = when (t) {
        T.UINT -> buffer.uintAt(offset, slotWidth)
        T.INT -> buffer.intAt(offset, slotWidth).also { if (it < 0) fail(ErrorKind.OutOfRange, offset) }
        T.INDIRECT_UINT -> { val d = dataOffset(); span(buffer, d, 1, width); buffer.uintAt(d, width) }
        T.INDIRECT_INT -> { val d = dataOffset(); span(buffer, d, 1, width); buffer.intAt(d, width).also { if (it < 0) fail(ErrorKind.OutOfRange, offset) } }
        else -> mismatch("unsigned integer")
    }

    /** An unsigned integer. */
    public fun asULong(): ULong = asULongBits().toULong()

    /** A number as f64 (integers are converted). */
    public fun asDouble(): Double = when (t) {
        T.FLOAT -> { if (slotWidth < 4) fail(ErrorKind.BadWidth, offset); buffer.floatAt(offset, slotWidth) }
        T.INDIRECT_FLOAT -> {
            if (width < 4) fail(ErrorKind.BadWidth, offset)
            val d = dataOffset(); span(buffer, d, 1, width); buffer.floatAt(d, width)
        }
        T.INT, T.INDIRECT_INT -> asLong().toDouble()
        T.UINT, T.INDIRECT_UINT -> asULongBits().toULong().toDouble()
        else -> mismatch("number")
    }

    /** A string or key. */
    public fun asString(): String {
        val start: Int
        val end: Int
        when (t) {
            T.STRING -> { start = dataOffset(); end = start + sizeOf(buffer, start, width) }
            T.KEY -> { start = dataOffset(); end = keyEnd(buffer, start) }
            else -> mismatch("string")
        }
        return if (trusted) Utf8.decode(buffer, start, end) else Utf8.decodeChecked(buffer, start, end, offset)
    }

    /** The bytes of a string, key or blob: `[start, end)` in [buffer] packed as `start shl 32 | end`. */
    public fun bytesRange(): Long {
        val start: Int
        val end: Int
        when (t) {
            T.STRING, T.BLOB -> { start = dataOffset(); end = start + sizeOf(buffer, start, width) }
            T.KEY -> { start = dataOffset(); end = keyEnd(buffer, start) }
            else -> mismatch("blob")
        }
        return (start.toLong() shl 32) or end.toLong()
    }

    /** A blob (or a string's bytes), copied. */
    public fun asBlob(): ByteArray {
        if (t != T.BLOB && t != T.STRING) mismatch("blob")
        val r = bytesRange()
        return buffer.copyOfRange((r ushr 32).toInt(), r.toInt())
    }

    /** A map. */
    public fun asMap(): FlexMap {
        if (t != T.MAP) mismatch("map")
        return FlexMap.at(buffer, dataOffset(), width, offset, trusted)
    }

    /** A vector of any kind: untyped, typed, fixed (a map reads as the vector of its values). */
    public fun asVector(): FlexVector {
        val w = width
        return when {
            t == T.VECTOR || t == T.MAP -> FlexVector.at(buffer, dataOffset(), w, -1, trusted)
            T.isTypedVector(t) -> FlexVector.at(buffer, dataOffset(), w, T.typedElement(t), trusted)
            T.isFixed(t) -> {
                val d = dataOffset()
                val n = T.fixedLength(t)
                span(buffer, d, n, w)
                FlexVector(buffer, d, n, w, T.fixedElement(t), trusted)
            }
            else -> mismatch("vector")
        }
    }

    /** True for every vector-like type except maps. */
    public val isVector: Boolean get() = t == T.VECTOR || T.isTypedVector(t) || T.isFixed(t)

    /** Map entry [key] (throws [ErrorKind.KeyNotFound] when absent). */
    public operator fun get(key: String): FlexRef = asMap()[key]

    /** Vector element [i]. */
    public operator fun get(i: Int): FlexRef = asVector()[i]

    /** Equality by content (see [Content]): the same logical value, whatever the widths or buffer. */
    override fun equals(other: Any?): Boolean = other is FlexRef && Content.equal(this, other)

    /** A hash that agrees with [equals]. */
    override fun hashCode(): Int = Content.hash(this)

    override fun toString(): String = try { Json.write(this) } catch (e: FlexException) { "FlexRef(${type.wireName} at $offset: ${e.kind})" }

    public companion object {
        /** The root of [buf] for checked reads of untrusted bytes (see [verify] for trusted reads). */
        public fun root(buf: ByteArray): FlexRef = rootOf(buf, false)

        internal fun rootOf(buf: ByteArray, trusted: Boolean): FlexRef {
            val n = buf.size
            if (n < 3) fail(ErrorKind.Truncated, 0)
            val w = buf.u8(n - 1)
            if (w != 1 && w != 2 && w != 4 && w != 8) fail(ErrorKind.BadWidth, n - 1, "root width $w")
            val pos = n - 2 - w
            if (pos < 0) fail(ErrorKind.Truncated, 0)
            return of(buf, pos, w, buf.u8(n - 2), n - 2, trusted)
        }

        internal fun of(buf: ByteArray, pos: Int, parentWidth: Int, packed: Int, typeAt: Int, trusted: Boolean): FlexRef {
            val t = packed ushr 2
            if (!T.known(t)) fail(ErrorKind.UnknownType, typeAt, "type code $t")
            return FlexRef(buf, pos, parentWidth, t, 1 shl (packed and 3), trusted)
        }
    }
}

/** Follows the offset of [w] bytes at [pos]; the target must not be after [pos]. */
internal fun follow(buf: ByteArray, pos: Int, w: Int): Int {
    if (pos < 0 || pos + w > buf.size) fail(ErrorKind.Truncated, pos)
    val off = buf.uintAt(pos, w)
    if (off < 0 || off > pos) fail(ErrorKind.OffsetOutOfBounds, pos)
    return pos - off.toInt()
}

/** The size prefix of the sized value at [data]; checked against the buffer length only. */
internal fun sizeOf(buf: ByteArray, data: Int, w: Int): Int {
    val at = data - w
    if (at < 0) fail(ErrorKind.OffsetOutOfBounds, data)
    if (at + w > buf.size) fail(ErrorKind.Truncated, at)
    val n = buf.uintAt(at, w)
    if (n < 0 || n > buf.size - data) fail(ErrorKind.SizeOutOfBounds, at)
    return n.toInt()
}

/** Checks that [count] units of [unit] bytes from [at] are in the buffer. */
internal fun span(buf: ByteArray, at: Int, count: Int, unit: Int) {
    if (at < 0 || count < 0 || count.toLong() * unit + at > buf.size) fail(ErrorKind.SizeOutOfBounds, at)
}

/** The position of the NUL ending the key at [at]. */
internal fun keyEnd(buf: ByteArray, at: Int): Int {
    if (at < 0 || at >= buf.size) fail(ErrorKind.OffsetOutOfBounds, at)
    var i = at
    while (i < buf.size) {
        if (buf[i].toInt() == 0) return i
        i++
    }
    fail(ErrorKind.MissingNul, at)
}

/**
 * A vector of any kind with its bounds checked: [size] elements of [width]
 * bytes from [data]; [elemType] is the element type code of typed and fixed
 * vectors, or -1 for untyped vectors (one type byte per element after the data).
 */
public class FlexVector internal constructor(
    /** The buffer. */
    public val buffer: ByteArray,
    /** Offset of the first element. */
    public val data: Int,
    /** Number of elements. */
    public val size: Int,
    /** Element width in bytes. */
    public val width: Int,
    internal val elemType: Int,
    internal val trusted: Boolean,
) {
    /** The element type of typed and fixed vectors; null for untyped ones. */
    public val elementType: FlexType? get() = if (elemType < 0) null else FlexType.fromCode(elemType)

    /** Element [i]. */
    public operator fun get(i: Int): FlexRef {
        if (i < 0 || i >= size) fail(ErrorKind.IndexOutOfBounds, data, "index $i of $size")
        val pos = data + i * width
        if (elemType >= 0) return FlexRef(buffer, pos, width, elemType, 1, trusted)
        val typeAt = data + size * width + i
        return FlexRef.of(buffer, pos, width, buffer.u8(typeAt), typeAt, trusted)
    }

    /** Packed type byte of element [i] of an untyped vector (the element type for typed ones). */
    public fun packedAt(i: Int): Int = if (elemType >= 0) elemType shl 2 else buffer.u8(data + size * width + i)

    internal companion object {
        fun at(buf: ByteArray, data: Int, w: Int, elem: Int, trusted: Boolean): FlexVector {
            val n = sizeOf(buf, data, w)
            span(buf, data, n, if (elem < 0) w + 1 else w)
            return FlexVector(buf, data, n, w, elem, trusted)
        }
    }
}

/**
 * A map: [size] values (an untyped vector) and their keys (a typed key vector),
 * sorted by unsigned bytes, so lookups are binary searches.
 */
public class FlexMap internal constructor(
    /** The values, as an untyped vector. */
    public val values: FlexVector,
    /** Offset of the keys vector's first element. */
    public val keysOffset: Int,
    /** Width of the keys vector's elements. */
    public val keysWidth: Int,
) {
    /** The buffer. */
    public val buffer: ByteArray get() = values.buffer

    /** Number of entries. */
    public val size: Int get() = values.size

    /** Position of key [i]'s first byte. */
    public fun keyAt(i: Int): Int {
        if (i < 0 || i >= size) fail(ErrorKind.IndexOutOfBounds, keysOffset, "index $i of $size")
        return follow(values.buffer, keysOffset + i * keysWidth, keysWidth)
    }

    /** Key [i]. */
    public fun key(i: Int): String {
        val at = keyAt(i)
        val end = keyEnd(values.buffer, at)
        return if (values.trusted) Utf8.decode(values.buffer, at, end) else Utf8.decodeChecked(values.buffer, at, end, at)
    }

    /** Value [i]. */
    public fun value(i: Int): FlexRef = values[i]

    /**
     * Checks every key as the verifier does: in the buffer, NUL-terminated, UTF-8, strictly
     * ascending (unsigned bytes). A one-pass decoder that looks keys up by binary search needs
     * this of a keys vector it has not proven: in keys out of order the search can miss a key
     * that is there, and a field read as absent takes its default (the Rust core's
     * `MapReader::check_keys`, the same errors).
     */
    internal fun checkKeys() {
        val b = values.buffer
        var prev = -1
        for (i in 0 until size) {
            val at = keyAt(i)
            val end = keyEnd(b, at)
            if (Utf8.invalidAt(b, at, end) >= 0) fail(ErrorKind.InvalidUtf8, at)
            // Both keys end in a NUL inside the buffer (keyEnd), as compareFrom needs.
            if (prev >= 0 && KeySort.compareFrom(b, prev, at) >= 0) {
                fail(ErrorKind.UnsortedKeys, keysOffset + i * keysWidth, "map keys are not strictly ascending")
            }
            prev = at
        }
    }

    /** Key [i] as a reader (of type [FlexType.KEY]). */
    public fun keyRef(i: Int): FlexRef {
        if (i < 0 || i >= size) fail(ErrorKind.IndexOutOfBounds, keysOffset, "index $i of $size")
        return FlexRef(values.buffer, keysOffset + i * keysWidth, keysWidth, T.KEY, 1, values.trusted)
    }

    /** True when key [i] is exactly [probe] (UTF-8 bytes, no NUL). */
    public fun keyEquals(i: Int, probe: ByteArray): Boolean {
        val b = values.buffer
        val at = keyAt(i)
        val n = probe.size
        if (at + n >= b.size) return false
        for (k in 0 until n) if (b[at + k] != probe[k]) return false
        return b[at + n].toInt() == 0
    }

    /** Index of the entry with key [probe] (UTF-8 bytes), or -1. */
    public fun indexOf(probe: ByteArray): Int {
        var lo = 0
        var hi = size
        val b = values.buffer
        while (lo < hi) {
            val mid = (lo + hi) ushr 1
            val at = follow(b, keysOffset + mid * keysWidth, keysWidth)
            val c = compareKey(b, at, probe)
            when {
                c < 0 -> lo = mid + 1
                c > 0 -> hi = mid
                else -> return mid
            }
        }
        return -1
    }

    /** Index of the entry with key [key], or -1. */
    public fun indexOf(key: String): Int = indexOf(Utf8.encode(key))

    /** The value of [key], or null when absent. */
    public fun find(key: String): FlexRef? {
        val i = indexOf(key)
        return if (i < 0) null else values[i]
    }

    /** The value of [key]; throws [ErrorKind.KeyNotFound] (with the key in the path) when absent. */
    public operator fun get(key: String): FlexRef =
        find(key) ?: throw FlexException(ErrorKind.KeyNotFound, keysOffset).inKey(key)

    public companion object {
        internal fun at(buf: ByteArray, data: Int, w: Int, refPos: Int, trusted: Boolean): FlexMap {
            val values = FlexVector.at(buf, data, w, -1, trusted)
            val prefix = data - 3 * w
            if (prefix < 0) fail(ErrorKind.OffsetOutOfBounds, refPos)
            val keys = follow(buf, prefix, w)
            val kw = buf.uintAt(prefix + w, w)
            if (kw != 1L && kw != 2L && kw != 4L && kw != 8L) fail(ErrorKind.BadWidth, prefix + w, "keys width $kw")
            val kn = sizeOf(buf, keys, kw.toInt())
            span(buf, keys, kn, kw.toInt())
            // A keys vector shorter than the values would make lookups read past it.
            if (kn != values.size) fail(ErrorKind.KeyValueLengthMismatch, data, "keys $kn, values ${values.size}")
            return FlexMap(values, keys, kw.toInt())
        }

        /** strcmp of the key at [at] with [probe]: a shorter stored key sorts first. */
        internal fun compareKey(b: ByteArray, at: Int, probe: ByteArray): Int {
            if (at < 0 || at >= b.size) fail(ErrorKind.OffsetOutOfBounds, at)
            val n = probe.size
            var k = 0
            while (k < n) {
                if (at + k >= b.size) fail(ErrorKind.MissingNul, at)
                val x = b[at + k].toInt() and 0xff
                val y = probe[k].toInt() and 0xff
                if (x != y) return x - y
                k++
            }
            if (at + n >= b.size) fail(ErrorKind.MissingNul, at)
            return if (b[at + n].toInt() == 0) 0 else 1
        }
    }
}
