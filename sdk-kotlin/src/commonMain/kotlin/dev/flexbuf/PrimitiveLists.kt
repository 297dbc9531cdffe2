package dev.flexbuf

// Read-only lists over primitive arrays: decoded numeric vectors stay unboxed,
// and encoders hand the backing array straight to the builder.

/** A read-only `List<Int>` backed by a [IntArray] (not copied: do not mutate the array). */
public class IntList(public val array: IntArray) : AbstractList<Int>(), RandomAccess {
    override val size: Int get() = array.size
    override fun get(index: Int): Int { val a = array; return a[index] }
}

/** The backing array when [this] is a [IntList], else a copy. */
public fun List<Int>.toIntBacking(): IntArray = if (this is IntList) array else toIntArray()

/** A read-only `List<Long>` backed by a [LongArray] (not copied: do not mutate the array). */
public class LongList(public val array: LongArray) : AbstractList<Long>(), RandomAccess {
    override val size: Int get() = array.size
    override fun get(index: Int): Long { val a = array; return a[index] }
}

/** The backing array when [this] is a [LongList], else a copy. */
public fun List<Long>.toLongBacking(): LongArray = if (this is LongList) array else toLongArray()

/** A read-only `List<Short>` backed by a [ShortArray] (not copied: do not mutate the array). */
public class ShortList(public val array: ShortArray) : AbstractList<Short>(), RandomAccess {
    override val size: Int get() = array.size
    override fun get(index: Int): Short { val a = array; return a[index] }
}

/** The backing array when [this] is a [ShortList], else a copy. */
public fun List<Short>.toShortBacking(): ShortArray = if (this is ShortList) array else toShortArray()

/** A read-only `List<Byte>` backed by a [ByteArray] (not copied: do not mutate the array). */
public class ByteList(public val array: ByteArray) : AbstractList<Byte>(), RandomAccess {
    override val size: Int get() = array.size
    override fun get(index: Int): Byte { val a = array; return a[index] }
}

/** The backing array when [this] is a [ByteList], else a copy. */
public fun List<Byte>.toByteBacking(): ByteArray = if (this is ByteList) array else toByteArray()

/** A read-only `List<Double>` backed by a [DoubleArray] (not copied: do not mutate the array). */
public class DoubleList(public val array: DoubleArray) : AbstractList<Double>(), RandomAccess {
    override val size: Int get() = array.size
    override fun get(index: Int): Double { val a = array; return a[index] }
}

/** The backing array when [this] is a [DoubleList], else a copy. */
public fun List<Double>.toDoubleBacking(): DoubleArray = if (this is DoubleList) array else toDoubleArray()

/** A read-only `List<Float>` backed by a [FloatArray] (not copied: do not mutate the array). */
public class FloatList(public val array: FloatArray) : AbstractList<Float>(), RandomAccess {
    override val size: Int get() = array.size
    override fun get(index: Int): Float { val a = array; return a[index] }
}

/** The backing array when [this] is a [FloatList], else a copy. */
public fun List<Float>.toFloatBacking(): FloatArray = if (this is FloatList) array else toFloatArray()

/** A read-only `List<Boolean>` backed by a [BooleanArray] (not copied: do not mutate the array). */
public class BoolList(public val array: BooleanArray) : AbstractList<Boolean>(), RandomAccess {
    override val size: Int get() = array.size
    override fun get(index: Int): Boolean { val a = array; return a[index] }
}

/** The backing array when [this] is a [BoolList], else a copy. */
public fun List<Boolean>.toBoolBacking(): BooleanArray = if (this is BoolList) array else toBooleanArray()

/** A read-only `List<UByte>` backed by a [ByteArray] (not copied: do not mutate the array). */
public class UByteList(public val array: ByteArray) : AbstractList<UByte>(), RandomAccess {
    override val size: Int get() = array.size
    override fun get(index: Int): UByte { val a = array; return a[index].toUByte() }
}

/** The backing array when [this] is a [UByteList], else a copy. */
public fun List<UByte>.toUByteBacking(): ByteArray = if (this is UByteList) array else let { l -> ByteArray(l.size) { l[it].toByte() } }

/** A read-only `List<UShort>` backed by a [ShortArray] (not copied: do not mutate the array). */
public class UShortList(public val array: ShortArray) : AbstractList<UShort>(), RandomAccess {
    override val size: Int get() = array.size
    override fun get(index: Int): UShort { val a = array; return a[index].toUShort() }
}

/** The backing array when [this] is a [UShortList], else a copy. */
public fun List<UShort>.toUShortBacking(): ShortArray = if (this is UShortList) array else let { l -> ShortArray(l.size) { l[it].toShort() } }

/** A read-only `List<UInt>` backed by a [IntArray] (not copied: do not mutate the array). */
public class UIntList(public val array: IntArray) : AbstractList<UInt>(), RandomAccess {
    override val size: Int get() = array.size
    override fun get(index: Int): UInt { val a = array; return a[index].toUInt() }
}

/** The backing array when [this] is a [UIntList], else a copy. */
public fun List<UInt>.toUIntBacking(): IntArray = if (this is UIntList) array else let { l -> IntArray(l.size) { l[it].toInt() } }

/** A read-only `List<ULong>` backed by a [LongArray] (not copied: do not mutate the array). */
public class ULongList(public val array: LongArray) : AbstractList<ULong>(), RandomAccess {
    override val size: Int get() = array.size
    override fun get(index: Int): ULong { val a = array; return a[index].toULong() }
}

/** The backing array when [this] is a [ULongList], else a copy. */
public fun List<ULong>.toULongBacking(): LongArray = if (this is ULongList) array else let { l -> LongArray(l.size) { l[it].toLong() } }
