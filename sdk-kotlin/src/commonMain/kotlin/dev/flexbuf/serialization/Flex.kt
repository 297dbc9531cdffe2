package dev.flexbuf.serialization

import dev.flexbuf.Budget
import dev.flexbuf.ErrorKind
import dev.flexbuf.FlexBuffers
import dev.flexbuf.FlexBuilder
import dev.flexbuf.FlexCoder
import dev.flexbuf.FlexCoderRegistry
import dev.flexbuf.FlexException
import dev.flexbuf.FlexMap
import dev.flexbuf.FlexRef
import dev.flexbuf.FlexType
import dev.flexbuf.FlexVector
import dev.flexbuf.T
import dev.flexbuf.Utf8
import dev.flexbuf.follow
import dev.flexbuf.sizeOf
import dev.flexbuf.floatAt
import dev.flexbuf.intAt
import dev.flexbuf.uintAt
import dev.flexbuf.u8
import dev.flexbuf.keyEnd
import kotlinx.serialization.BinaryFormat
import kotlinx.serialization.DeserializationStrategy
import kotlinx.serialization.ExperimentalSerializationApi
import kotlinx.serialization.SerializationStrategy
import kotlinx.serialization.builtins.ByteArraySerializer
import kotlinx.serialization.descriptors.SerialDescriptor
import kotlinx.serialization.descriptors.StructureKind
import kotlinx.serialization.encoding.AbstractEncoder
import kotlinx.serialization.encoding.CompositeDecoder
import kotlinx.serialization.encoding.CompositeEncoder
import kotlinx.serialization.encoding.Decoder
import kotlinx.serialization.modules.EmptySerializersModule
import kotlinx.serialization.modules.SerializersModule

/**
 * FlexBuffers as a kotlinx.serialization [BinaryFormat]: the coverage tier for
 * any `@Serializable` class. Classes (and sealed hierarchies, as
 * `{"type": serialName, "value": {...}}`) become maps keyed by serial names,
 * lists become vectors, maps become maps (keys as strings), enums their names,
 * `ByteArray` a blob, null stays null. Decoding reads untrusted bytes in one
 * checked pass (bounds, types and UTF-8 of what it reads, the verifier's depth
 * limit, the expansion budget with string bytes), matching fields by key and
 * skipping unknown ones; [decodeFromByteArrayStrict] verifies the whole buffer
 * first.
 *
 * When [registry] holds a generated coder under the serializer's serial name
 * (see the generated `XxxFlexRegistrar.registerAll`), that coder is used
 * instead: the exact-layout fast path, byte-identical to the Rust encoder.
 *
 * ```
 * val bytes = Flex.encodeToByteArray(User.serializer(), user)
 * val back = Flex.decodeFromByteArray(User.serializer(), bytes)
 * ```
 */
public open class Flex(
    /** Generated coders to prefer, by serial name; null disables the fast path. */
    public val registry: FlexCoderRegistry? = FlexCoderRegistry.default,
    /** Contextual and polymorphic serializers. */
    override val serializersModule: SerializersModule = EmptySerializersModule(),
) : BinaryFormat {
    /** The default instance: the default registry and an empty module. */
    public companion object Default : Flex()

    @Suppress("UNCHECKED_CAST")
    private fun <T> fast(name: String): FlexCoder<T>? = registry?.find(name) as FlexCoder<T>?

    override fun <T> encodeToByteArray(serializer: SerializationStrategy<T>, value: T): ByteArray {
        fast<T>(serializer.descriptor.serialName)?.let { return FlexBuffers.encode(it, value) }
        return FlexBuffers.pool.use { b ->
            FlexEncoder(b, serializersModule).encodeSerializableValue(serializer, value)
            b.finish()
        }
    }

    override fun <T> decodeFromByteArray(deserializer: DeserializationStrategy<T>, bytes: ByteArray): T {
        fast<T>(deserializer.descriptor.serialName)?.let { return FlexBuffers.decode(it, bytes) }
        return ValueDecoder(FlexRef.root(bytes), serializersModule, DecodeState(Budget.forInput(bytes.size)))
            .decodeSerializableValue(deserializer)
    }

    /**
     * As [decodeFromByteArray] after [dev.flexbuf.verify] accepted the whole of
     * [bytes] (unknown fields included); for every buffer it accepts, the same
     * result as the one-pass [decodeFromByteArray].
     */
    public fun <T> decodeFromByteArrayStrict(deserializer: DeserializationStrategy<T>, bytes: ByteArray): T {
        val verified = dev.flexbuf.verify(bytes)
        fast<T>(deserializer.descriptor.serialName)?.let { return FlexBuffers.decode(it, verified) }
        return ValueDecoder(verified.root(), serializersModule, DecodeState(Budget.forInput(bytes.size)))
            .decodeSerializableValue(deserializer)
    }

    /** Encodes with a caller-owned [builder] (cleared first); returns the length of `builder.buffer[0, length)`, valid until its next use. */
    public fun <T> encodeToBuffer(serializer: SerializationStrategy<T>, value: T, builder: FlexBuilder): Int {
        builder.clear()
        FlexEncoder(builder, serializersModule).encodeSerializableValue(serializer, value)
        return builder.finishInPlace()
    }
}

private const val K_CLASS = 0
private const val K_LIST = 1
private const val K_MAP = 2

@OptIn(ExperimentalSerializationApi::class)
private fun kindOf(d: SerialDescriptor): Int = when (d.kind) {
    StructureKind.LIST -> K_LIST
    StructureKind.MAP -> K_MAP
    else -> K_CLASS
}

private val byteArrayDescriptor = ByteArraySerializer().descriptor

@OptIn(ExperimentalSerializationApi::class)
private class FlexEncoder(val b: FlexBuilder, override val serializersModule: SerializersModule) : AbstractEncoder() {
    private var kinds = IntArray(16)
    private var depth = 0
    private var keyNext = false

    override fun encodeElement(descriptor: SerialDescriptor, index: Int): Boolean {
        when (kinds[depth - 1]) {
            K_CLASS -> b.key(descriptor.getElementName(index))
            K_MAP -> keyNext = index % 2 == 0
        }
        return true
    }

    override fun beginStructure(descriptor: SerialDescriptor): CompositeEncoder {
        val k = kindOf(descriptor)
        if (depth == kinds.size) kinds = kinds.copyOf(depth * 2)
        kinds[depth++] = k
        if (k == K_LIST) b.startVector() else b.startMap()
        return this
    }

    override fun endStructure(descriptor: SerialDescriptor) {
        val k = kinds[--depth]
        if (k == K_LIST) b.endVector() else b.endMap()
    }

    override fun shouldEncodeElementDefault(descriptor: SerialDescriptor, index: Int): Boolean = true

    /** Writes the map key that comes next, in its text form (map keys are text). */
    private fun key(s: String) {
        keyNext = false
        b.key(s)
    }

    // A value's text is made only when it is a map key (a double's text alone
    // costs more than writing the double).
    override fun encodeNull() { b.nul() }
    override fun encodeBoolean(value: Boolean) { if (keyNext) key(value.toString()) else b.bool(value) }
    override fun encodeByte(value: Byte) { if (keyNext) key(value.toString()) else b.int(value.toLong()) }
    override fun encodeShort(value: Short) { if (keyNext) key(value.toString()) else b.int(value.toLong()) }
    override fun encodeInt(value: Int) { if (keyNext) key(value.toString()) else b.int(value) }
    override fun encodeLong(value: Long) { if (keyNext) key(value.toString()) else b.int(value) }
    override fun encodeFloat(value: Float) { if (keyNext) key(value.toString()) else b.float(value) }
    override fun encodeDouble(value: Double) { if (keyNext) key(value.toString()) else b.double(value) }
    override fun encodeChar(value: Char) { if (keyNext) key(value.toString()) else b.string(value.toString()) }
    override fun encodeString(value: String) { if (keyNext) key(value) else b.string(value) }
    override fun encodeEnum(enumDescriptor: SerialDescriptor, index: Int) {
        val name = enumDescriptor.getElementName(index)
        if (keyNext) key(name) else b.string(name)
    }

    override fun <T> encodeSerializableValue(serializer: SerializationStrategy<T>, value: T) {
        if (serializer.descriptor == byteArrayDescriptor && !keyNext) {
            b.blob(value as ByteArray)
            return
        }
        super.encodeSerializableValue(serializer, value)
    }
}

/**
 * One decode's shared state: the budget, the nesting depth (the verifier's
 * default limit, so cycles and deep input end in [ErrorKind.DepthLimit]), and
 * per class and keys vector the element index of each key, so maps sharing a
 * keys vector decode and look up their keys once per buffer.
 */
private class DecodeState(val budget: Budget) {
    var depth = 0
    private val descriptors = arrayOfNulls<SerialDescriptor>(CACHED)
    private val keyVectors = LongArray(CACHED)
    private val layouts = arrayOfNulls<ClassLayout>(CACHED)
    private var n = 0

    fun enter(at: Int) {
        if (++depth > MAX_DEPTH) throw FlexException(ErrorKind.DepthLimit, at, "deeper than $MAX_DEPTH")
    }

    /** How the keys of [map] stand to the elements of [descriptor]. */
    fun layout(descriptor: SerialDescriptor, map: FlexMap): ClassLayout {
        val id = (map.keysOffset.toLong() shl 4) or map.keysWidth.toLong()
        for (i in 0 until n) if (keyVectors[i] == id && descriptors[i] === descriptor) return layouts[i]!!
        val out = KeyLayouts.find(descriptor, map)
            ?: ClassLayout.of(descriptor, IntArray(map.size) { descriptor.getElementIndex(map.key(it)) })
                .also { KeyLayouts.remember(descriptor, map, it) }
        budget.bytes(map.size.toLong())
        // Past CACHED class/keys-vector pairs per buffer, the last slot is reused.
        val at = if (n < CACHED) n++ else CACHED - 1
        descriptors[at] = descriptor
        keyVectors[at] = id
        layouts[at] = out
        return out
    }

    companion object {
        const val MAX_DEPTH = 64
        const val CACHED = 32
    }
}

/**
 * How the keys of a map stand to the elements of the class it is decoded as:
 * [index] gives the element index of each key ([CompositeDecoder.UNKNOWN_NAME]
 * for keys the class does not have); [entry], when every element has exactly
 * one key, gives the map entry of each element, so the class can be read in
 * element order ([CompositeDecoder.decodeSequentially]).
 */
private class ClassLayout(val index: IntArray, val entry: IntArray?) {
    companion object {
        fun of(descriptor: SerialDescriptor, index: IntArray): ClassLayout {
            val n = descriptor.elementsCount
            if (index.size != n) return ClassLayout(index, null)
            val entry = IntArray(n) { -1 }
            for (i in index.indices) {
                val e = index[i]
                // Unknown, or a second key for one element: read by index, as keys come.
                if (e < 0 || e >= n || entry[e] >= 0) return ClassLayout(index, null)
                entry[e] = i
            }
            return ClassLayout(index, entry)
        }
    }
}

/** The keys of a map decoded as [descriptor] (their UTF-8 bytes, in order) and their [layout]. */
private class KnownKeys(val descriptor: SerialDescriptor, val keys: Array<ByteArray>, val layout: ClassLayout)

/**
 * The keys vector seen last per class, across buffers: a class decoded again
 * from another buffer (one record per buffer is the usual case) proves its
 * keys by comparing their bytes with the ones seen before, instead of
 * decoding each key and looking its name up. Equal bytes are equal keys, so
 * the indices are the ones a lookup would give; anything else decodes and
 * looks up as before. Slots are replaced whole by immutable entries, so
 * threads sharing a slot each read one complete entry.
 */
private object KeyLayouts {
    private const val SLOTS = 64
    private const val MAX_KEYS = 256
    private val slots = arrayOfNulls<KnownKeys>(SLOTS)

    private fun slot(descriptor: SerialDescriptor): Int = descriptor.serialName.hashCode() and (SLOTS - 1)

    fun find(descriptor: SerialDescriptor, map: FlexMap): ClassLayout? {
        val e = slots[slot(descriptor)] ?: return null
        if (e.descriptor !== descriptor || e.keys.size != map.size) return null
        for (i in e.keys.indices) if (!map.keyEquals(i, e.keys[i])) return null
        return e.layout
    }

    /** Keeps [layout], found by name for the keys of [map] (all of which decoded as valid UTF-8). */
    fun remember(descriptor: SerialDescriptor, map: FlexMap, layout: ClassLayout) {
        if (map.size > MAX_KEYS) return
        val b = map.buffer
        val keys = Array(map.size) { val at = map.keyAt(it); b.copyOfRange(at, keyEnd(b, at)) }
        slots[slot(descriptor)] = KnownKeys(descriptor, keys, layout)
    }
}

/**
 * Reads primitives from [cur]; structures open child decoders over it.
 *
 * Implements [Decoder] and [CompositeDecoder] itself rather than extending
 * `AbstractDecoder`, whose element reads are final: each element read here
 * first calls [element] with the element's index, which a class read in
 * element order ([ClassDecoder]) uses to move to that element's entry.
 */
@OptIn(ExperimentalSerializationApi::class)
private abstract class FlexDecoderBase(
    override val serializersModule: SerializersModule,
    val st: DecodeState,
) : Decoder, CompositeDecoder {
    abstract val cur: FlexRef

    /** Moves to element [index] before it is read (only a class read in element order moves). */
    protected open fun element(index: Int) {}

    override fun decodeElementIndex(descriptor: SerialDescriptor): Int = CompositeDecoder.DECODE_DONE

    override fun decodeBooleanElement(descriptor: SerialDescriptor, index: Int): Boolean { element(index); return decodeBoolean() }
    override fun decodeByteElement(descriptor: SerialDescriptor, index: Int): Byte { element(index); return decodeByte() }
    override fun decodeShortElement(descriptor: SerialDescriptor, index: Int): Short { element(index); return decodeShort() }
    override fun decodeIntElement(descriptor: SerialDescriptor, index: Int): Int { element(index); return decodeInt() }
    override fun decodeLongElement(descriptor: SerialDescriptor, index: Int): Long { element(index); return decodeLong() }
    override fun decodeFloatElement(descriptor: SerialDescriptor, index: Int): Float { element(index); return decodeFloat() }
    override fun decodeDoubleElement(descriptor: SerialDescriptor, index: Int): Double { element(index); return decodeDouble() }
    override fun decodeCharElement(descriptor: SerialDescriptor, index: Int): Char { element(index); return decodeChar() }
    override fun decodeStringElement(descriptor: SerialDescriptor, index: Int): String { element(index); return decodeString() }

    override fun decodeInlineElement(descriptor: SerialDescriptor, index: Int): Decoder {
        element(index)
        return decodeInline(descriptor.getElementDescriptor(index))
    }

    override fun decodeInline(descriptor: SerialDescriptor): Decoder = this

    override fun <T> decodeSerializableElement(
        descriptor: SerialDescriptor,
        index: Int,
        deserializer: DeserializationStrategy<T>,
        previousValue: T?,
    ): T {
        element(index)
        return decodeSerializableValue(deserializer)
    }

    override fun <T : Any> decodeNullableSerializableElement(
        descriptor: SerialDescriptor,
        index: Int,
        deserializer: DeserializationStrategy<T?>,
        previousValue: T?,
    ): T? {
        element(index)
        return if (deserializer.descriptor.isNullable || decodeNotNullMark()) decodeSerializableValue(deserializer) else decodeNull()
    }

    override fun beginStructure(descriptor: SerialDescriptor): CompositeDecoder {
        st.budget.node()
        val r = cur
        st.enter(r.offset)
        return when (kindOf(descriptor)) {
            K_LIST -> {
                if (!r.isVector) throw FlexException(ErrorKind.TypeMismatch, r.offset, "expected a vector for ${descriptor.serialName}, found ${r.type.wireName}")
                ListDecoder(r.asVector(), serializersModule, st)
            }
            K_MAP -> MapDecoder(r.asMap(), serializersModule, st)
            else -> r.asMap().let { ClassDecoder(it, st.layout(descriptor, it), serializersModule, st) }
        }
    }

    override fun endStructure(descriptor: SerialDescriptor) {
        st.depth--
    }

    private fun text(): String = cur.asString().also { st.budget.bytes(it.length.toLong()) }

    override fun decodeNotNullMark(): Boolean = !cur.isNull
    override fun decodeNull(): Nothing? = null
    override fun decodeBoolean(): Boolean = if (cur.type == FlexType.KEY) text().toBoolean() else cur.asBool()
    private fun long(lo: Long, hi: Long): Long {
        val r = cur
        val v = if (r.type == FlexType.KEY) parsed(text().toLongOrNull(), "an integer") else r.asLong()
        if (v < lo || v > hi) throw FlexException(ErrorKind.OutOfRange, r.offset, "$v")
        return v
    }
    override fun decodeByte(): Byte = long(Byte.MIN_VALUE.toLong(), Byte.MAX_VALUE.toLong()).toByte()
    override fun decodeShort(): Short = long(Short.MIN_VALUE.toLong(), Short.MAX_VALUE.toLong()).toShort()
    override fun decodeInt(): Int = long(Int.MIN_VALUE.toLong(), Int.MAX_VALUE.toLong()).toInt()
    override fun decodeLong(): Long = long(Long.MIN_VALUE, Long.MAX_VALUE)
    override fun decodeFloat(): Float = if (cur.type == FlexType.KEY) parsed(text().toFloatOrNull(), "a number") else cur.asDouble().toFloat()
    override fun decodeDouble(): Double = if (cur.type == FlexType.KEY) parsed(text().toDoubleOrNull(), "a number") else cur.asDouble()
    override fun decodeChar(): Char = text().let { if (it.length == 1) it[0] else parsed(null, "one character") }

    /** A map key's text parsed as a primitive (map keys are strings on the wire), or a [FlexException]. */
    private fun <P : Any> parsed(value: P?, expected: String): P =
        value ?: throw FlexException(ErrorKind.TypeMismatch, cur.offset, "expected $expected, found a key that is not one")
    override fun decodeString(): String = text()
    override fun decodeEnum(enumDescriptor: SerialDescriptor): Int {
        val name = text()
        val i = enumDescriptor.getElementIndex(name)
        if (i == CompositeDecoder.UNKNOWN_NAME) throw FlexException(ErrorKind.TypeMismatch, cur.offset, "$name is not a value of ${enumDescriptor.serialName}")
        return i
    }

    @Suppress("UNCHECKED_CAST")
    override fun <T> decodeSerializableValue(deserializer: DeserializationStrategy<T>): T {
        if (deserializer.descriptor == byteArrayDescriptor) return cur.asBlob().also { st.budget.bytes(it.size.toLong()) } as T
        return deserializer.deserialize(this)
    }
}

private class ValueDecoder(override val cur: FlexRef, module: SerializersModule, st: DecodeState) : FlexDecoderBase(module, st)

/**
 * Elements of one vector (a list's, or a class's map values) read in turn.
 * Integers, floats, booleans and nulls stored in their slots, and strings,
 * are read straight from the vector; a [FlexRef] is made only for the
 * elements that need one (structures, keys, anything else), so a list of
 * 10,000 numbers or a record of scalar fields allocates no reader per
 * element. The direct reads return and throw exactly what the [FlexRef] path
 * does: anything other than a value of the asked kind takes that path.
 */
private abstract class ElementsDecoder(val vec: FlexVector, module: SerializersModule, st: DecodeState) : FlexDecoderBase(module, st) {
    /** Index of the element being decoded. */
    protected var at = -1
    private var current: FlexRef? = null
    override val cur: FlexRef get() = current ?: vec[at].also { current = it }

    /** Moves to element [i]. */
    protected fun moveTo(i: Int) {
        current = null
        at = i
    }

    /** The current element's type code (its slot is inside the vector, which was bounds-checked when opened). */
    private fun code(): Int =
        if (vec.elemType >= 0) vec.elemType else vec.buffer.u8(vec.data + vec.size * vec.width + at) ushr 2

    private fun slot(): Int = vec.data + at * vec.width

    override fun decodeNotNullMark(): Boolean = code() != T.NULL

    override fun decodeBoolean(): Boolean =
        if (code() == T.BOOL) vec.buffer.uintAt(slot(), vec.width) != 0L else super.decodeBoolean()

    override fun decodeLong(): Long =
        if (code() == T.INT) vec.buffer.intAt(slot(), vec.width) else super.decodeLong()

    override fun decodeInt(): Int {
        if (code() != T.INT) return super.decodeInt()
        val v = vec.buffer.intAt(slot(), vec.width)
        if (v < Int.MIN_VALUE || v > Int.MAX_VALUE) throw FlexException(ErrorKind.OutOfRange, slot(), "$v")
        return v.toInt()
    }

    override fun decodeDouble(): Double = when {
        code() == T.FLOAT && vec.width >= 4 -> vec.buffer.floatAt(slot(), vec.width)
        code() == T.INT -> vec.buffer.intAt(slot(), vec.width).toDouble()
        else -> super.decodeDouble()
    }

    override fun decodeString(): String {
        // Strings live only in untyped vectors (typed ones hold keys).
        if (vec.elemType >= 0 || code() != T.STRING) return super.decodeString()
        val buf = vec.buffer
        val slot = slot()
        val width = 1 shl (buf.u8(vec.data + vec.size * vec.width + at) and 3)
        val start = follow(buf, slot, vec.width)
        val end = start + sizeOf(buf, start, width)
        val s = if (vec.trusted) Utf8.decode(buf, start, end) else Utf8.decodeChecked(buf, start, end, slot)
        st.budget.bytes(s.length.toLong())
        return s
    }
}

/**
 * A class's map. Its entries are read as [decodeElementIndex] hands them out
 * (keys in wire order, unknown ones skipped); or, when each element of the
 * class has exactly one entry, in element order without it
 * ([decodeSequentially]), each element read moving to its entry: the
 * serializer's code then runs no dispatch per field, which matters most for
 * classes so large that the JVM leaves their serializer interpreted.
 */
private class ClassDecoder(val map: FlexMap, layout: ClassLayout, module: SerializersModule, st: DecodeState) : ElementsDecoder(map.values, module, st) {
    private val index = layout.index
    private val entry = layout.entry
    private var next = 0
    /** The entry [decodeElementIndex] moved to last (read next without moving again), or -1. */
    private var handed = -1

    override fun decodeSequentially(): Boolean = entry != null

    override fun element(index: Int) {
        val e = entry ?: return
        val i = e[index]
        if (i == handed) {
            handed = -1
            return
        }
        st.budget.node()
        moveTo(i)
    }

    override fun decodeElementIndex(descriptor: SerialDescriptor): Int {
        while (next < map.size) {
            val i = next++
            val idx = index[i]
            if (idx != CompositeDecoder.UNKNOWN_NAME) {
                st.budget.node()
                moveTo(i)
                handed = i
                return idx
            }
        }
        return CompositeDecoder.DECODE_DONE
    }
}

private class ListDecoder(vec: FlexVector, module: SerializersModule, st: DecodeState) : ElementsDecoder(vec, module, st) {
    private var next = 0

    override fun decodeCollectionSize(descriptor: SerialDescriptor): Int = vec.size

    override fun decodeElementIndex(descriptor: SerialDescriptor): Int {
        if (next >= vec.size) return CompositeDecoder.DECODE_DONE
        st.budget.node()
        moveTo(next)
        return next++
    }
}

private class MapDecoder(val map: FlexMap, module: SerializersModule, st: DecodeState) : FlexDecoderBase(module, st) {
    private var next = 0
    private var current: FlexRef? = null
    override val cur: FlexRef get() = current!!

    override fun decodeCollectionSize(descriptor: SerialDescriptor): Int = map.size

    override fun decodeElementIndex(descriptor: SerialDescriptor): Int {
        if (next >= 2 * map.size) return CompositeDecoder.DECODE_DONE
        st.budget.node()
        val i = next / 2
        current = if (next % 2 == 0) map.keyRef(i) else map.value(i)
        return next++
    }
}
