package dev.flexbuf

import kotlin.concurrent.atomics.AtomicInt
import kotlin.concurrent.atomics.ExperimentalAtomicApi
import kotlin.concurrent.atomics.fetchAndIncrement

/**
 * A type with a generated (or hand-written) FlexBuffers coder.
 *
 * The wire contract is the Rust core's `typed.rs`: a message is a map whose
 * fields are written in wire order (unsigned byte order of wire names, null for
 * absent optionals) with one keys vector per type per buffer; decoding reads by
 * position only after [DecodeContext.layoutMatches] proved the keys, otherwise
 * by key, so a layout mismatch never yields a neighbouring field's value.
 */
public interface FlexCoder<T> {
    /** Stable 64-bit identity of the type's wire contract (`flexbuf::schema` fingerprint). */
    public val fingerprint: Long

    /** The schema's qualified type name (`namespace.Name`). */
    public val typeName: String

    /** Pushes [value] as one value onto [b]. */
    public fun encode(b: FlexBuilder, cx: EncodeContext, value: T)

    /** Decodes a value from [r]. */
    public fun decode(r: FlexRef, cx: DecodeContext): T
}

/**
 * The wire names of a message in wire order, as strings, as UTF-8 bytes (for
 * lookups without encoding) and as one block: every name's UTF-8 followed by
 * its NUL, concatenated, which is how encoders write the type's keys
 * ([FlexBuilder.keyVectorFor]). Built once per type; the names must be
 * strictly ascending by unsigned bytes and contain no NUL.
 */
public class WireKeys(vararg names: String) {
    /** The names. */
    public val names: Array<String> = arrayOf(*names)

    /** The names as UTF-8. */
    public val bytes: Array<ByteArray> = Array(names.size) { Utf8.encode(names[it]) }

    /** Every name's UTF-8 followed by a NUL, concatenated. */
    internal val block: ByteArray

    /** Where each name starts in [block]. */
    internal val starts: IntArray = IntArray(names.size)

    /** A number unique to this instance: its key in the per-buffer tables of [EncodeContext] and [DecodeContext] ([SlotIndex]). */
    internal val slot: Int = nextSlot()

    init {
        var n = 0
        for (i in bytes.indices) {
            if (i > 0 && Utf8.compare(this.names[i - 1], this.names[i]) >= 0) {
                throw FlexException(ErrorKind.Builder, -1, "keys not strictly ascending: ${this.names[i]}")
            }
            if (bytes[i].any { it.toInt() == 0 }) throw FlexException(ErrorKind.Builder, -1, "a key contains NUL")
            starts[i] = n
            n += bytes[i].size + 1
        }
        block = ByteArray(n)
        for (i in bytes.indices) bytes[i].copyInto(block, starts[i])
    }

    @OptIn(ExperimentalAtomicApi::class)
    private companion object {
        val slots = AtomicInt(0)

        fun nextSlot(): Int = slots.fetchAndIncrement()
    }
}

/**
 * Maps [WireKeys.slot]s to dense indices 0, 1, 2, ... in order of first use,
 * so per-buffer tables stay as small as the number of types in the buffer
 * however many types a program loads. An open-addressed table: slots are
 * sequential, so a lookup is almost always one probe.
 */
internal class SlotIndex {
    // Sized for the few types most buffers hold (a power of two; doubled when half full).
    private var tags = IntArray(8) // slot + 1; 0 = empty
    private var dense = IntArray(8)

    /** Number of slots seen. */
    var size: Int = 0
        private set

    /** The dense index of [slot]; a new slot gets [size] (before the call). */
    fun of(slot: Int): Int {
        val mask = tags.size - 1
        var h = slot and mask
        while (true) {
            val t = tags[h]
            if (t == slot + 1) return dense[h]
            if (t == 0) break
            h = (h + 1) and mask
        }
        if (2 * (size + 1) > tags.size) {
            grow()
            return of(slot)
        }
        tags[h] = slot + 1
        dense[h] = size
        return size++
    }

    private fun grow() {
        val oldTags = tags
        val oldDense = dense
        tags = IntArray(oldTags.size * 2)
        dense = IntArray(oldTags.size * 2)
        val mask = tags.size - 1
        for (k in oldTags.indices) {
            if (oldTags[k] == 0) continue
            var h = (oldTags[k] - 1) and mask
            while (tags[h] != 0) h = (h + 1) and mask
            tags[h] = oldTags[k]
            dense[h] = oldDense[k]
        }
    }

    /** Forgets every slot. */
    fun clear() {
        tags.fill(0)
        size = 0
    }
}

/**
 * Per-buffer encoding state: the keys vector written for each message type.
 *
 * A type's keys are written once per buffer, on first use, as one block
 * ([FlexBuilder.keyVectorFor], without the key pool); a later type with exactly
 * the same keys shares that keys vector. This is the Rust core's
 * `EncodeContext::key_vector_for`, byte for byte.
 */
public class EncodeContext {
    // By the dense index of WireKeys.slot (first use order): the type's keys vector and key block.
    private val slots = SlotIndex()
    private var vectors = arrayOfNulls<KeyVector>(4)
    private var blocks = arrayOfNulls<ByteArray>(4)

    /**
     * The keys vector of the type whose wire names are [keys], written on first use
     * in this buffer. [id] (the type's fingerprint, passed by generated code) is not
     * needed: each [WireKeys] instance identifies its type.
     */
    public fun keyVector(b: FlexBuilder, @Suppress("UNUSED_PARAMETER") id: Long, keys: WireKeys): KeyVector {
        val s = slots.of(keys.slot)
        if (s < vectors.size) vectors[s]?.let { return it }
        return firstUse(b, s, keys)
    }

    private fun firstUse(b: FlexBuilder, s: Int, keys: WireKeys): KeyVector {
        var kv: KeyVector? = null
        for (i in 0 until minOf(slots.size, blocks.size)) {
            val other = blocks[i] ?: continue
            if (other === keys.block || other.contentEquals(keys.block)) { kv = vectors[i]; break }
        }
        if (kv == null) kv = b.keyVectorFor(keys)
        if (s >= vectors.size) {
            val n = maxOf(s + 1, vectors.size * 2)
            vectors = vectors.copyOf(n)
            blocks = blocks.copyOf(n)
        }
        vectors[s] = kv
        blocks[s] = keys.block
        return kv
    }

    /** Forgets every keys vector (for reuse with a cleared builder). */
    public fun reset() {
        vectors.fill(null)
        blocks.fill(null)
        slots.clear()
    }
}

/**
 * Per-buffer decoding state: proven layouts, nesting depth and the expansion budget.
 *
 * Generated decoders read untrusted bytes through checked readers in one pass
 * ([FlexBuffers.decode]); this context bounds that pass: every message and
 * element is charged to [budget], every string and blob byte too (so a string
 * shared by every element of a vector cannot expand without limit), and
 * nesting below the root deeper than [maxDepth] is [ErrorKind.DepthLimit].
 *
 * @param budget the expansion budget.
 * @param keyedOnly never read by position (the writer's schema is known to differ).
 * @param maxDepth deepest nesting of messages and collections below the root (the verifier's default limit;
 *   capped at [MAX_DEPTH]: each level of a generated decoder takes up to three frames, about 1.1 KB of stack
 *   while the JVM has not compiled them yet, so a cyclic buffer of a recursive type taken to the verifier's cap
 *   of 1024 could overflow a thread's 1 MB stack instead of failing with a [FlexException]).
 */
public class DecodeContext(
    private val budget: Budget,
    private val keyedOnly: Boolean = false,
    maxDepth: Int = 64,
) {
    private val maxDepth: Int = minOf(maxDepth, MAX_DEPTH)

    public companion object {
        /** The deepest nesting any context allows, whatever it asks for (half the verifier's cap). */
        public const val MAX_DEPTH: Int = 512
    }

    /** A context for a buffer of [len] bytes with the default budget. */
    public constructor(len: Int) : this(Budget.forInput(len))

    // By the dense index of WireKeys.slot: the keys vector (position shl 4 | width,
    // plus 1; 0 for none) last proven to be the type's keys, and the last one refuted.
    private val slots = SlotIndex()
    private var proven = LongArray(4)
    private var refuted = LongArray(4)
    private var depth = 0

    /** Charges one decoded node against the budget. */
    public fun charge() { budget.node() }

    /** Charges [n] bytes (strings, blobs, bulk copies). */
    public fun chargeBytes(n: Long) { budget.bytes(n) }

    /** Enters one level of nesting (a message or collection below the root). */
    public fun enter() {
        if (++depth > maxDepth) fail(ErrorKind.DepthLimit, -1, "deeper than $maxDepth")
    }

    /** Leaves the level [enter] opened (skipped when decoding fails: the context is then discarded). */
    public fun leave() { depth-- }

    /**
     * True when [m]'s keys are exactly [keys] (same strings, same order), so fields
     * may be read by position. Once a keys vector is proven for a type, every later
     * map of that type pointing at it costs one comparison; proving it is one
     * comparison of bytes against the type's key block when the keys are laid out
     * as encoders write them ([FlexBuilder.keyVectorFor]), else one per key.
     * [id] (the fingerprint generated code passes) is not needed: proofs are kept
     * per [WireKeys] instance. A keys vector of unverified bytes that is not proven
     * (its fields are then found by binary search) is checked first, once, as the
     * verifier checks keys: [ErrorKind.UnsortedKeys], [ErrorKind.MissingNul],
     * [ErrorKind.InvalidUtf8] or [ErrorKind.OffsetOutOfBounds] when it is broken.
     */
    public fun layoutMatches(@Suppress("UNUSED_PARAMETER") id: Long, m: FlexMap, keys: WireKeys): Boolean {
        budget.node()
        if (keyedOnly) {
            // Every field is looked up by key (binary search): the keys must be checked.
            if (!m.values.trusted) m.checkKeys()
            return false
        }
        val s = slots.of(keys.slot)
        if (s >= proven.size) {
            val n = maxOf(s + 1, proven.size * 2)
            proven = proven.copyOf(n)
            refuted = refuted.copyOf(n)
        }
        // The position and width of a keys vector determine its size and every key.
        val at = ((m.keysOffset.toLong() shl 4) or m.keysWidth.toLong()) + 1
        if (proven[s] == at) return true
        if (refuted[s] == at) return false
        val ok = prove(m, keys)
        // Fields of a map not proven are looked up by key (binary search): its keys are
        // checked first, once per keys vector and type, as the Rust coders check them.
        if (!ok && !m.values.trusted) m.checkKeys()
        if (ok) proven[s] = at else refuted[s] = at
        return ok
    }

    private fun prove(m: FlexMap, keys: WireKeys): Boolean {
        val n = keys.starts.size
        if (m.size != n) return false
        if (n == 0) return true
        val b = m.buffer
        val block = keys.block
        val first = m.keyAt(0)
        var contiguous = first + block.size <= b.size
        if (contiguous) {
            for (i in 1 until n) if (m.keyAt(i) != first + keys.starts[i]) { contiguous = false; break }
        }
        if (contiguous) {
            for (k in block.indices) if (b[first + k] != block[k]) return false
            return true
        }
        for (i in 0 until n) if (!m.keyEquals(i, keys.bytes[i])) return false
        return true
    }
}

/** Helpers for generated coders: lookups, errors with paths, strict field decoders. */
public object Typed {
    /** Index of field [i] of [keys] in [m]: [i] itself when the layout is proven, else by key (-1 when absent). */
    public fun index(m: FlexMap, fast: Boolean, i: Int, keys: WireKeys): Int = if (fast) i else m.indexOf(keys.bytes[i])

    /** The error for an absent required field [key]. */
    public fun missing(key: String): FlexException =
        FlexException(ErrorKind.MissingField, -1, "required field is missing").inKey(key)

    /** Runs [block], adding map key [key] to the path of any error. */
    public inline fun <R> at(key: String, block: () -> R): R =
        try { block() } catch (e: FlexException) { throw e.inKey(key) }

    /** Runs [block], adding vector index [i] to the path of any error. */
    public inline fun <R> atIndex(i: Int, block: () -> R): R =
        try { block() } catch (e: FlexException) { throw e.inIndex(i) }

    /** The error for an integer [raw] that is not a value of enum [name]. */
    public fun badEnum(raw: String, name: String, offset: Int): FlexException =
        FlexException(ErrorKind.UnknownEnumValue, offset, "$raw is not a value of enum $name")

    /**
     * [list], the value of a fixed-length array (`[T; N]` in a schema), when it
     * has [n] elements; [ErrorKind.ArrayLength] otherwise (decoding adds the path).
     */
    public fun <L : List<*>> array(list: L, n: Int): L {
        if (list.size != n) {
            throw FlexException(ErrorKind.ArrayLength, -1, "expected an array of $n elements, found a vector of ${list.size}")
        }
        return list
    }

    /** Pushes [values] as a fixed typed vector at their natural width (as the core's `fixed_vector`). */
    public fun fixedVector(b: FlexBuilder, values: IntArray, unsigned: Boolean = false): Unit =
        b.scalarVector(if (unsigned) FlexType.UINT else FlexType.INT, 4,
            LongArray(values.size) { if (unsigned) values[it].toLong() and 0xffffffffL else values[it].toLong() }, fixed = true)

    /** Pushes [values] as a fixed typed vector at their natural width. */
    public fun fixedVector(b: FlexBuilder, values: LongArray, unsigned: Boolean = false): Unit =
        b.scalarVector(if (unsigned) FlexType.UINT else FlexType.INT, 8, values, fixed = true)

    /** Pushes [values] as a fixed typed vector at their natural width. */
    public fun fixedVector(b: FlexBuilder, values: ShortArray, unsigned: Boolean = false): Unit =
        b.scalarVector(if (unsigned) FlexType.UINT else FlexType.INT, 2,
            LongArray(values.size) { if (unsigned) values[it].toLong() and 0xffff else values[it].toLong() }, fixed = true)

    /** Pushes [values] as a fixed typed vector at their natural width. */
    public fun fixedVector(b: FlexBuilder, values: ByteArray, unsigned: Boolean = false): Unit =
        b.scalarVector(if (unsigned) FlexType.UINT else FlexType.INT, 1,
            LongArray(values.size) { if (unsigned) values[it].toLong() and 0xff else values[it].toLong() }, fixed = true)

    /** Pushes [values] as a fixed typed vector at their natural width. */
    public fun fixedVector(b: FlexBuilder, values: FloatArray): Unit =
        b.scalarVector(FlexType.FLOAT, 4, LongArray(values.size) { values[it].toRawBits().toLong() and 0xffffffffL }, fixed = true)

    /** Pushes [values] as a fixed typed vector at their natural width. */
    public fun fixedVector(b: FlexBuilder, values: DoubleArray): Unit =
        b.scalarVector(FlexType.FLOAT, 8, LongArray(values.size) { values[it].toRawBits() }, fixed = true)

    /**
     * The one-entry map of a union value at [r]: null is [ErrorKind.UnexpectedNull] (a union
     * value is never optional where it is decoded), any other non-map [ErrorKind.TypeMismatch].
     */
    public fun unionMap(r: FlexRef): FlexMap {
        if (r.t == T.NULL) fail(ErrorKind.UnexpectedNull, r.offset, "null for a union that is not optional")
        return r.asMap()
    }

    /** The error for a union map that is not exactly one known entry. */
    public fun badUnion(detail: String, offset: Int): FlexException = FlexException(ErrorKind.BadUnion, offset, detail)

    /** Keys of [m] in unsigned-byte order (the order maps must be pushed in for byte identity). */
    public fun <V> sortedEntries(m: Map<String, V>): Collection<Map.Entry<String, V>> {
        var prev: String? = null
        var sorted = true
        for (k in m.keys) {
            if (prev != null && Utf8.compare(prev, k) >= 0) { sorted = false; break }
            prev = k
        }
        return if (sorted) m.entries else m.entries.sortedWith { a, b -> Utf8.compare(a.key, b.key) }
    }
}

/**
 * Strict field decoders addressing element [i] of a vector (or map values)
 * without allocating a reader: integers of any width and signedness are
 * accepted and range-checked, floats accept integers, null is rejected with
 * [ErrorKind.UnexpectedNull] (optional fields test [isNull] first).
 */
public object Fields {
    /** True when element [i] is null. */
    public fun isNull(v: FlexVector, i: Int): Boolean = typeAt(v, i) == T.NULL

    private fun typeAt(v: FlexVector, i: Int): Int =
        if (v.elemType >= 0) v.elemType else v.buffer.u8(v.data + v.size * v.width + i) ushr 2

    private fun nullOr(v: FlexVector, i: Int, expected: String): Nothing {
        val pos = v.data + i * v.width
        if (typeAt(v, i) == T.NULL) fail(ErrorKind.UnexpectedNull, pos, "null for a field that is not optional")
        val found = FlexType.fromCode(typeAt(v, i))?.wireName ?: "unknown"
        fail(ErrorKind.TypeMismatch, pos, "expected $expected, found $found")
    }

    /** Element [i] as a reader (null rejected). */
    public fun ref(v: FlexVector, i: Int): FlexRef {
        if (typeAt(v, i) == T.NULL) nullOr(v, i, "value")
        return v[i]
    }

    /** A signed 64-bit integer. */
    public fun long(v: FlexVector, i: Int): Long {
        val pos = v.data + i * v.width
        return when (typeAt(v, i)) {
            T.INT -> v.buffer.intAt(pos, v.width)
            T.UINT -> v.buffer.uintAt(pos, v.width).also { if (it < 0) fail(ErrorKind.OutOfRange, pos) }
            T.INDIRECT_INT, T.INDIRECT_UINT -> v[i].asLong()
            else -> nullOr(v, i, "integer")
        }
    }

    /** An unsigned 64-bit integer, as raw bits. */
    public fun ulongBits(v: FlexVector, i: Int): Long {
        val pos = v.data + i * v.width
        return when (typeAt(v, i)) {
            T.UINT -> v.buffer.uintAt(pos, v.width)
            T.INT -> v.buffer.intAt(pos, v.width).also { if (it < 0) fail(ErrorKind.OutOfRange, pos) }
            T.INDIRECT_INT, T.INDIRECT_UINT -> v[i].asULongBits()
            else -> nullOr(v, i, "integer")
        }
    }

    private fun ranged(v: FlexVector, i: Int, lo: Long, hi: Long): Long {
        val x = long(v, i)
        if (x < lo || x > hi) fail(ErrorKind.OutOfRange, v.data + i * v.width, "$x")
        return x
    }

    private fun uranged(v: FlexVector, i: Int, hi: Long): Long {
        val x = ulongBits(v, i)
        if (x < 0 || x > hi) fail(ErrorKind.OutOfRange, v.data + i * v.width, x.toULong().toString())
        return x
    }

    /** An `i8`. */
    public fun i8(v: FlexVector, i: Int): Byte = ranged(v, i, -128, 127).toByte()
    /** An `i16`. */
    public fun i16(v: FlexVector, i: Int): Short = ranged(v, i, -32768, 32767).toShort()
    /** An `i32`. */
    public fun i32(v: FlexVector, i: Int): Int = ranged(v, i, Int.MIN_VALUE.toLong(), Int.MAX_VALUE.toLong()).toInt()
    /** An `i64`. */
    public fun i64(v: FlexVector, i: Int): Long = long(v, i)
    /** A `u8`. */
    public fun u8(v: FlexVector, i: Int): UByte = uranged(v, i, 0xff).toUByte()
    /** A `u16`. */
    public fun u16(v: FlexVector, i: Int): UShort = uranged(v, i, 0xffff).toUShort()
    /** A `u32`. */
    public fun u32(v: FlexVector, i: Int): UInt = uranged(v, i, 0xffffffffL).toUInt()
    /** A `u64`. */
    public fun u64(v: FlexVector, i: Int): ULong = ulongBits(v, i).toULong()

    /** An enum's raw integer; an unsigned value beyond `Long.MAX_VALUE` is reported as not a value of [enumName]. */
    public fun enumRaw(v: FlexVector, i: Int, enumName: String): Long {
        val pos = v.data + i * v.width
        val t = typeAt(v, i)
        if ((t == T.UINT || t == T.INDIRECT_UINT) && v[i].asULongBits() < 0) {
            throw Typed.badEnum(v[i].asULong().toString(), enumName, pos)
        }
        return long(v, i)
    }

    /** A boolean. */
    public fun bool(v: FlexVector, i: Int): Boolean {
        if (typeAt(v, i) != T.BOOL) nullOr(v, i, "bool")
        return v.buffer.uintAt(v.data + i * v.width, v.width) != 0L
    }

    /** An `f64` (integers are converted). */
    public fun f64(v: FlexVector, i: Int): Double {
        val t = typeAt(v, i)
        if (t == T.FLOAT && v.width >= 4) return v.buffer.floatAt(v.data + i * v.width, v.width)
        return when (t) {
            T.FLOAT, T.INDIRECT_FLOAT, T.INT, T.UINT, T.INDIRECT_INT, T.INDIRECT_UINT -> v[i].asDouble()
            else -> nullOr(v, i, "number")
        }
    }

    /** An `f32`. */
    public fun f32(v: FlexVector, i: Int): Float {
        val f = f64(v, i)
        val r = f.toFloat()
        // A finite value beyond f32's range would silently become an infinity.
        if (r.isInfinite() && f.isFinite()) fail(ErrorKind.OutOfRange, v.data + i * v.width, "$f")
        return r
    }

    /** A string (a single read: no budget to charge). */
    public fun string(v: FlexVector, i: Int): String {
        if (typeAt(v, i) != T.STRING) {
            if (typeAt(v, i) == T.KEY) return v[i].asString()
            nullOr(v, i, "string")
        }
        val b = v.buffer
        val data = follow(b, v.data + i * v.width, v.width)
        val n = sizeOf(b, data, 1 shl (packedWidth(v, i)))
        return if (v.trusted) Utf8.decode(b, data, data + n) else Utf8.decodeChecked(b, data, data + n, data)
    }

    /** A string whose bytes are charged to [cx]'s budget (a string shared by many fields is charged at each). */
    public fun string(v: FlexVector, i: Int, cx: DecodeContext): String {
        if (typeAt(v, i) != T.STRING) {
            if (typeAt(v, i) == T.KEY) return v[i].asString().also { cx.chargeBytes(it.length.toLong()) }
            nullOr(v, i, "string")
        }
        val b = v.buffer
        val data = follow(b, v.data + i * v.width, v.width)
        val n = sizeOf(b, data, 1 shl (packedWidth(v, i)))
        cx.chargeBytes(n.toLong())
        return if (v.trusted) Utf8.decode(b, data, data + n) else Utf8.decodeChecked(b, data, data + n, data)
    }

    private fun packedWidth(v: FlexVector, i: Int): Int =
        if (v.elemType >= 0) 0 else v.buffer.u8(v.data + v.size * v.width + i) and 3

    /** A blob, copied (a single read: no budget to charge). */
    public fun bytes(v: FlexVector, i: Int): ByteArray {
        if (typeAt(v, i) != T.BLOB) nullOr(v, i, "blob")
        return v[i].asBlob()
    }

    /** A blob, copied, its bytes charged to [cx]'s budget before the copy. */
    public fun bytes(v: FlexVector, i: Int, cx: DecodeContext): ByteArray {
        if (typeAt(v, i) != T.BLOB) nullOr(v, i, "blob")
        val r = v[i].bytesRange()
        val from = (r ushr 32).toInt()
        val to = r.toInt()
        cx.chargeBytes((to - from).toLong())
        return v.buffer.copyOfRange(from, to)
    }

    /** Element [i] as a vector (maps are refused, unlike [FlexRef.asVector]). */
    public fun vector(v: FlexVector, i: Int): FlexVector {
        val t = typeAt(v, i)
        if (t == T.MAP || t == T.NULL) nullOr(v, i, "vector")
        return v[i].asVector()
    }

    /** Element [i] as a map. */
    public fun map(v: FlexVector, i: Int): FlexMap {
        if (typeAt(v, i) != T.MAP) nullOr(v, i, "map")
        return v[i].asMap()
    }

    /** A message decoded with [coder]. */
    public fun <T> message(coder: FlexCoder<T>, v: FlexVector, i: Int, cx: DecodeContext): T {
        val r = ref(v, i)
        cx.enter()
        val out = coder.decode(r, cx)
        cx.leave()
        return out
    }

    /**
     * A union variant's message or union payload at element [i]: decoded as the value itself, so a
     * null there is the payload type's own error ([ErrorKind.TypeMismatch] for a message), not a
     * null field ([message] rejects null with [ErrorKind.UnexpectedNull]).
     */
    public fun <T> payload(coder: FlexCoder<T>, v: FlexVector, i: Int, cx: DecodeContext): T {
        val r = v[i]
        cx.enter()
        val out = coder.decode(r, cx)
        cx.leave()
        return out
    }

    /** A vector decoded element by element with [elem]; errors name the index. */
    public inline fun <E> list(v: FlexVector, i: Int, cx: DecodeContext, elem: (FlexVector, Int) -> E): List<E> {
        val vec = vector(v, i)
        cx.enter()
        val out = ArrayList<E>(vec.size)
        for (j in 0 until vec.size) {
            cx.charge()
            out.add(try { elem(vec, j) } catch (e: FlexException) { throw e.inIndex(j) })
        }
        cx.leave()
        return out
    }

    /** A `{string: T}` map decoded with [value], in wire (sorted) order; errors name the key. */
    public inline fun <E> stringMap(v: FlexVector, i: Int, cx: DecodeContext, value: (FlexVector, Int) -> E): Map<String, E> {
        val m = map(v, i)
        cx.enter()
        val out = LinkedHashMap<String, E>(m.size * 2)
        val values = m.values
        for (j in 0 until m.size) {
            cx.charge()
            val k = m.key(j)
            cx.chargeBytes(k.length.toLong())
            out[k] = try { value(values, j) } catch (e: FlexException) { throw e.inKey(k) }
        }
        cx.leave()
        return out
    }

    private inline fun <A> scalarList(
        v: FlexVector, i: Int, cx: DecodeContext, elem: Int, width: Int,
        make: (Int) -> A, bulk: (A, ByteArray, Int, Int) -> Unit, wide: (A, FlexVector, Int) -> Boolean,
        one: (A, FlexVector, Int) -> Unit,
    ): A {
        val vec = vector(v, i)
        val n = vec.size
        val out = make(n)
        if (vec.elemType == elem && vec.width == width) {
            cx.chargeBytes(n.toLong() * width)
            bulk(out, vec.buffer, vec.data, n)
        } else if (vec.elemType >= 0 && wide(out, vec, n)) {
            cx.chargeBytes(n.toLong() * width)
        } else {
            for (j in 0 until n) {
                cx.charge()
                try { one(out, vec, j) } catch (e: FlexException) { throw e.inIndex(j) }
            }
        }
        return out
    }

    /**
     * Widens typed integer vector [vec] into a target of [width] bytes in one loop
     * when every element fits it without a check (narrower signed into signed,
     * narrower unsigned into either); false (nothing written) otherwise, for the
     * checked element-by-element path.
     */
    private inline fun widenInts(vec: FlexVector, n: Int, signedTarget: Boolean, width: Int, put: (Int, Long) -> Unit): Boolean {
        val w = vec.width
        val fits = when (vec.elemType) {
            T.INT -> signedTarget && w <= width
            T.UINT -> if (signedTarget) w < width else w <= width
            else -> false
        }
        if (!fits) return false
        val b = vec.buffer
        val d = vec.data
        if (vec.elemType == T.INT) for (k in 0 until n) put(k, b.intAt(d + k * w, w))
        else for (k in 0 until n) put(k, b.uintAt(d + k * w, w))
        return true
    }

    /** `[i32]` into an [IntArray] behind a read-only list. */
    public fun intList(v: FlexVector, i: Int, cx: DecodeContext): List<Int> = IntList(scalarList(v, i, cx, T.INT, 4, ::IntArray,
        { a, b, d, n -> for (k in 0 until n) a[k] = b.i32le(d + 4 * k) },
        { a, vec, n -> widenInts(vec, n, true, 4) { k, x -> a[k] = x.toInt() } }, { a, vec, j -> a[j] = i32(vec, j) }))

    /** `[i64]` into a [LongArray]. */
    public fun longList(v: FlexVector, i: Int, cx: DecodeContext): List<Long> = LongList(scalarList(v, i, cx, T.INT, 8, ::LongArray,
        { a, b, d, n -> for (k in 0 until n) a[k] = b.i64le(d + 8 * k) },
        { a, vec, n -> widenInts(vec, n, true, 8) { k, x -> a[k] = x } }, { a, vec, j -> a[j] = i64(vec, j) }))

    /** `[i16]` into a [ShortArray]. */
    public fun shortList(v: FlexVector, i: Int, cx: DecodeContext): List<Short> = ShortList(scalarList(v, i, cx, T.INT, 2, ::ShortArray,
        { a, b, d, n -> for (k in 0 until n) a[k] = b.u16(d + 2 * k).toShort() },
        { a, vec, n -> widenInts(vec, n, true, 2) { k, x -> a[k] = x.toShort() } }, { a, vec, j -> a[j] = i16(vec, j) }))

    /** `[i8]` into a [ByteArray]. */
    public fun byteList(v: FlexVector, i: Int, cx: DecodeContext): List<Byte> = ByteList(scalarList(v, i, cx, T.INT, 1, ::ByteArray,
        { a, b, d, n -> b.copyInto(a, 0, d, d + n) }, { _, _, _ -> false }, { a, vec, j -> a[j] = i8(vec, j) }))

    /** `[u8]` into a [ByteArray]. */
    public fun ubyteList(v: FlexVector, i: Int, cx: DecodeContext): List<UByte> = UByteList(scalarList(v, i, cx, T.UINT, 1, ::ByteArray,
        { a, b, d, n -> b.copyInto(a, 0, d, d + n) }, { _, _, _ -> false }, { a, vec, j -> a[j] = u8(vec, j).toByte() }))

    /** `[u16]` into a [ShortArray]. */
    public fun ushortList(v: FlexVector, i: Int, cx: DecodeContext): List<UShort> = UShortList(scalarList(v, i, cx, T.UINT, 2, ::ShortArray,
        { a, b, d, n -> for (k in 0 until n) a[k] = b.u16(d + 2 * k).toShort() },
        { a, vec, n -> widenInts(vec, n, false, 2) { k, x -> a[k] = x.toShort() } }, { a, vec, j -> a[j] = u16(vec, j).toShort() }))

    /** `[u32]` into an [IntArray]. */
    public fun uintList(v: FlexVector, i: Int, cx: DecodeContext): List<UInt> = UIntList(scalarList(v, i, cx, T.UINT, 4, ::IntArray,
        { a, b, d, n -> for (k in 0 until n) a[k] = b.i32le(d + 4 * k) },
        { a, vec, n -> widenInts(vec, n, false, 4) { k, x -> a[k] = x.toInt() } }, { a, vec, j -> a[j] = u32(vec, j).toInt() }))

    /** `[u64]` into a [LongArray]. */
    public fun ulongList(v: FlexVector, i: Int, cx: DecodeContext): List<ULong> = ULongList(scalarList(v, i, cx, T.UINT, 8, ::LongArray,
        { a, b, d, n -> for (k in 0 until n) a[k] = b.i64le(d + 8 * k) },
        { a, vec, n -> widenInts(vec, n, false, 8) { k, x -> a[k] = x } }, { a, vec, j -> a[j] = ulongBits(vec, j) }))

    /** `[f64]` into a [DoubleArray] (a vector of f32 widened in one loop). */
    public fun doubleList(v: FlexVector, i: Int, cx: DecodeContext): List<Double> = DoubleList(scalarList(v, i, cx, T.FLOAT, 8, ::DoubleArray,
        { a, b, d, n -> for (k in 0 until n) a[k] = Double.fromBits(b.i64le(d + 8 * k)) },
        { a, vec, n ->
            if (vec.elemType == T.FLOAT && vec.width == 4) {
                val b = vec.buffer
                val d = vec.data
                for (k in 0 until n) a[k] = Float.fromBits(b.i32le(d + 4 * k)).toDouble()
                true
            } else false
        }, { a, vec, j -> a[j] = f64(vec, j) }))

    /** `[f32]` into a [FloatArray] (a vector of f64 narrowed in one loop). */
    public fun floatList(v: FlexVector, i: Int, cx: DecodeContext): List<Float> = FloatList(scalarList(v, i, cx, T.FLOAT, 4, ::FloatArray,
        { a, b, d, n -> for (k in 0 until n) a[k] = Float.fromBits(b.i32le(d + 4 * k)) },
        { a, vec, n ->
            if (vec.elemType == T.FLOAT && vec.width == 8) {
                val b = vec.buffer
                val d = vec.data
                var inRange = true
                for (k in 0 until n) {
                    val x = Double.fromBits(b.i64le(d + 8 * k))
                    val r = x.toFloat()
                    if (r.isInfinite() && x.isFinite()) inRange = false
                    a[k] = r
                }
                // Beyond f32's range: the element-by-element path reports the index.
                inRange
            } else false
        }, { a, vec, j -> a[j] = f32(vec, j) }))

    /** `[bool]` into a [BooleanArray]. */
    public fun boolList(v: FlexVector, i: Int, cx: DecodeContext): List<Boolean> = BoolList(scalarList(v, i, cx, T.BOOL, 1, ::BooleanArray,
        { a, b, d, n -> for (k in 0 until n) a[k] = b[d + k].toInt() != 0 }, { _, _, _ -> false }, { a, vec, j -> a[j] = bool(vec, j) }))
}
