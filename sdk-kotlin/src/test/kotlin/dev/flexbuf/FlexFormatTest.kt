package dev.flexbuf

import defects.DefectsFlexRegistrar
import defects.Profile
import defects.ProfileFlexCoder
import dev.flexbuf.serialization.Flex
import kotlinx.serialization.Contextual
import kotlinx.serialization.KSerializer
import kotlinx.serialization.builtins.DoubleArraySerializer
import kotlinx.serialization.builtins.IntArraySerializer
import kotlinx.serialization.builtins.ListSerializer
import kotlinx.serialization.builtins.LongArraySerializer
import kotlinx.serialization.builtins.serializer
import kotlinx.serialization.SerialName
import kotlinx.serialization.Serializable
import kotlinx.serialization.descriptors.PrimitiveKind
import kotlinx.serialization.descriptors.PrimitiveSerialDescriptor
import kotlinx.serialization.descriptors.SerialDescriptor
import kotlinx.serialization.descriptors.buildClassSerialDescriptor
import kotlinx.serialization.descriptors.element
import kotlinx.serialization.encoding.CompositeDecoder
import kotlinx.serialization.encoding.Decoder
import kotlinx.serialization.encoding.decodeStructure
import kotlinx.serialization.encoding.Encoder
import kotlinx.serialization.modules.SerializersModule
import org.junit.jupiter.api.Assertions.assertArrayEquals
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows

@Serializable
sealed class Shape {
    @Serializable @SerialName("circle") data class Circle(val r: Double) : Shape()
    @Serializable @SerialName("rect") data class Rect(val w: Int, val h: Int) : Shape()
}

class Money(val cents: Long)

object MoneySerializer : KSerializer<Money> {
    override val descriptor: SerialDescriptor = PrimitiveSerialDescriptor("Money", PrimitiveKind.STRING)
    override fun serialize(encoder: Encoder, value: Money) = encoder.encodeString("${value.cents / 100}.${(value.cents % 100).toString().padStart(2, '0')}")
    override fun deserialize(decoder: Decoder): Money = Money(decoder.decodeString().replace(".", "").toLong())
}

@Serializable
data class Order(
    val id: Long,
    val note: String? = "none",
    val tags: List<String> = emptyList(),
    val counts: Map<String, Int> = emptyMap(),
    val byId: Map<Int, String> = emptyMap(),
    val shapes: List<Shape> = emptyList(),
    val blob: ByteArray = ByteArray(0),
    @Contextual val price: Money? = null,
)

@Serializable
data class OrderV1(val id: Long)

@Serializable
data class Scalars(val a: Long, val b: Int, val c: Double, val d: Boolean, val e: Long?, val f: String)

@Serializable
data class Mixed(val id: Long, val name: String, val tags: List<String>, val xs: List<Double>, val n: IntArray, val inner: Scalars?, val more: Map<String, Long>)

@Serializable
data class Abc(val a: Int = 0, val b: Int = 0, val c: Int = 0)

@Serializable @JvmInline
value class Celsius(val v: Double)

@Serializable
enum class Mood { HAPPY, SAD }

/** Elements declared out of key order, so reading in element order has to move about the map. */
@Serializable
data class Reading(
    val zeta: String,
    val alpha: Long,
    val mid: Celsius,
    val inner: Scalars?,
    val mood: Mood,
    val list: List<Int>,
    val maybe: String?,
    val beta: Shape,
)

/** [Reading] with one more field, which a [Reading] does not know. */
@Serializable
data class ReadingPlus(
    val zeta: String,
    val alpha: Long,
    val mid: Celsius,
    val inner: Scalars?,
    val mood: Mood,
    val list: List<Int>,
    val maybe: String?,
    val beta: Shape,
    val zzUnknown: Int = 1,
)

/** Three fields read by hand, recording whether the decoder offered element order. */
data class Triple3(val c: Long, val a: String, val b: Boolean)

object Triple3Serializer : KSerializer<Triple3> {
    var sequential: Boolean? = null
    override val descriptor: SerialDescriptor = buildClassSerialDescriptor("Triple3") {
        element<Long>("c")
        element<String>("a")
        element<Boolean>("b")
    }
    override fun serialize(encoder: Encoder, value: Triple3) = throw UnsupportedOperationException()
    override fun deserialize(decoder: Decoder): Triple3 = decoder.decodeStructure(descriptor) {
        var c = 0L
        var a = ""
        var b = false
        sequential = decodeSequentially()
        if (sequential == true) {
            c = decodeLongElement(descriptor, 0)
            a = decodeStringElement(descriptor, 1)
            b = decodeBooleanElement(descriptor, 2)
        } else {
            while (true) {
                when (val i = decodeElementIndex(descriptor)) {
                    0 -> c = decodeLongElement(descriptor, 0)
                    1 -> a = decodeStringElement(descriptor, 1)
                    2 -> b = decodeBooleanElement(descriptor, 2)
                    CompositeDecoder.DECODE_DONE -> break
                    else -> error("index $i")
                }
            }
        }
        Triple3(c, a, b)
    }
}

class FlexFormatTest {
    private val flex = Flex(registry = null, serializersModule = SerializersModule { contextual(Money::class, MoneySerializer) })

    @Test
    fun roundTripsEveryShape() {
        val o = Order(
            id = 42, note = null, tags = listOf("a", "é"), counts = mapOf("z" to 1, "a" to 2), byId = mapOf(7 to "seven"),
            shapes = listOf(Shape.Circle(1.5), Shape.Rect(2, 3)), blob = byteArrayOf(1, 2, 3), price = Money(1999),
        )
        val bytes = flex.encodeToByteArray(Order.serializer(), o)
        val back = flex.decodeFromByteArray(Order.serializer(), bytes)
        assertNull(back.note, "explicit null stays null")
        assertEquals(o.tags, back.tags)
        assertEquals(o.counts, back.counts)
        assertEquals(o.byId, back.byId)
        assertEquals(o.shapes, back.shapes)
        assertArrayEquals(o.blob, back.blob)
        assertEquals(1999L, back.price?.cents)
        // The buffer is an ordinary FlexBuffer map with serial names as keys.
        val json = Json.toJson(bytes)
        assert(json.contains("\"shapes\":[{\"type\":\"circle\",\"value\":{\"r\":1.5}}")) { json }
    }

    @Test
    fun unknownFieldsAreSkippedAndMissingRequiredFails() {
        val bytes = flex.encodeToByteArray(Order.serializer(), Order(id = 1, tags = listOf("x")))
        assertEquals(OrderV1(1), flex.decodeFromByteArray(OrderV1.serializer(), bytes))
        val empty = FlexBuilder().apply { startMap(); endMap() }.finish()
        assertThrows<kotlinx.serialization.SerializationException> { flex.decodeFromByteArray(OrderV1.serializer(), empty) }
    }

    @Test
    fun keysRememberedFromEarlierBuffersNeverPickTheWrongField() {
        // Each class's keys are remembered across buffers and proven by their
        // bytes; buffers of one class with other keys of the same count (and
        // length) alternate, so a stale proof would read a neighbouring field.
        fun buf(vararg kv: Pair<String, Int>): ByteArray = FlexBuilder().apply {
            startMap()
            for ((k, v) in kv) { key(k); int(v.toLong()) }
            endMap()
        }.finish()
        val cases = listOf(
            buf("a" to 1, "b" to 2) to Abc(a = 1, b = 2),
            buf("a" to 3, "c" to 4) to Abc(a = 3, c = 4),
            buf("b" to 5, "c" to 6) to Abc(b = 5, c = 6),
            buf("a" to 7, "b" to 8, "c" to 9) to Abc(7, 8, 9),
            buf("a" to 10, "x" to 11) to Abc(a = 10),
            buf("c" to 12) to Abc(c = 12),
        )
        repeat(3) {
            for ((bytes, want) in cases) {
                assertEquals(want, flex.decodeFromByteArray(Abc.serializer(), bytes))
                assertEquals(want, flex.decodeFromByteArray(Abc.serializer(), bytes))
            }
        }
    }

    @Test
    fun registeredGeneratedCoderTakesTheFastPath() {
        val reg = FlexCoderRegistry()
        DefectsFlexRegistrar.registerAll(reg)
        val fast = Flex(registry = reg)
        val p = Profile(id = 3u, nickname = null)
        val viaFormat = fast.encodeToByteArray(Profile.serializer(), p)
        assertArrayEquals(FlexBuffers.encode(ProfileFlexCoder, p), viaFormat)
        assertEquals(p, fast.decodeFromByteArray(Profile.serializer(), viaFormat))
        // Without the registration the serializer route is taken (enums by name there), and round-trips too.
        val slow = Flex(registry = null)
        val slowBytes = slow.encodeToByteArray(Profile.serializer(), p)
        assertEquals(p, slow.decodeFromByteArray(Profile.serializer(), slowBytes))
        assert(Json.toJson(slowBytes).contains("\"tint\":\"Green\"")) { Json.toJson(slowBytes) }
    }

    /**
     * Lists of numbers are read straight from the vector (no reader per
     * element); every element must come back as the per-element reader
     * gives it, or fail with the same error kind.
     */
    @Test
    fun numberListsReadDirectlyAgreeWithTheElementReader() {
        val flex = Flex()
        val longs = longArrayOf(0, 1, -1, 127, -128, 300, -70000, Int.MAX_VALUE.toLong() + 1, Long.MIN_VALUE, Long.MAX_VALUE)
        val buffers = mutableListOf<ByteArray>()
        for (n in listOf(0, 1, 3, longs.size)) {
            val vals = longs.copyOf(n)
            buffers += FlexBuilder().apply { typedVector(vals) }.finish()
            buffers += FlexBuilder().apply { typedVector(IntArray(n) { vals[it].toInt() }) }.finish()
            buffers += FlexBuilder().apply { typedVector(DoubleArray(n) { vals[it] * 0.5 }) }.finish()
            buffers += FlexBuilder().apply { typedVector(FloatArray(n) { vals[it].toFloat() }) }.finish()
        }
        // Untyped vectors: integers, floats and everything else mixed, at every width.
        for (wide in listOf(false, true)) {
            buffers += FlexBuilder().apply {
                if (wide) forceMinWidth(8)
                startVector(); int(5); double(2.5); int(-3); endVector()
            }.finish()
            buffers += FlexBuilder().apply {
                if (wide) forceMinWidth(8)
                startVector(); int(1); uint(7L); string("x"); nul(); bool(true); indirectInt(9); indirectDouble(1.5); float(0.25f); int(Long.MAX_VALUE); endVector()
            }.finish()
        }
        val readers: List<Pair<String, (ByteArray) -> List<Any>>> = listOf(
            "Long" to { b -> flex.decodeFromByteArray(ListSerializer(Long.serializer()), b) },
            "Int" to { b -> flex.decodeFromByteArray(ListSerializer(Int.serializer()), b) },
            "Double" to { b -> flex.decodeFromByteArray(ListSerializer(Double.serializer()), b) },
            "LongArray" to { b -> flex.decodeFromByteArray(LongArraySerializer(), b).toList() },
            "IntArray" to { b -> flex.decodeFromByteArray(IntArraySerializer(), b).toList() },
            "DoubleArray" to { b -> flex.decodeFromByteArray(DoubleArraySerializer(), b).toList() },
        )
        for (bytes in buffers) {
            val vec = FlexRef.root(bytes).asVector()
            for ((name, read) in readers) {
                // What the element reader gives, element by element (the first failure ends the list).
                val want: Result<List<Any>> = runCatching {
                    List(vec.size) { i ->
                        val r = vec[i]
                        when (name) {
                            "Long", "LongArray" -> r.asLong()
                            "Int", "IntArray" -> r.asLong().also { if (it < Int.MIN_VALUE || it > Int.MAX_VALUE) throw FlexException(ErrorKind.OutOfRange, r.offset, "$it") }.toInt()
                            else -> r.asDouble()
                        }
                    }
                }
                val got = runCatching { read(bytes) }
                val context = "$name of ${Json.toJson(bytes)}"
                if (want.isSuccess) {
                    assertEquals(want.getOrThrow(), got.getOrThrow(), context)
                } else {
                    val e = got.exceptionOrNull()
                    assert(e is FlexException && e.kind == (want.exceptionOrNull() as FlexException).kind) { "$context: $e vs ${want.exceptionOrNull()}" }
                }
            }
        }
    }

    /**
     * Scalar fields of a class are read straight from the map's values; each
     * must come back as the element reader gives it, or fail with the same
     * error kind, whatever is stored there.
     */
    @Test
    fun scalarFieldsReadDirectlyAgreeWithTheElementReader() {
        val flex = Flex()
        val stored: List<FlexBuilder.() -> Unit> = listOf(
            { int(7) }, { int(-300) }, { int(Int.MAX_VALUE.toLong() + 1) }, { uint(5L) }, { double(1.5) },
            { float(0.5f) }, { string("s") }, { nul() }, { bool(true) }, { bool(false) }, { indirectInt(4) },
            { string("ü€😀") }, { stringUtf8(byteArrayOf(0x61, 0xff.toByte())) },
        )
        fun expect(m: FlexRef, k: String): Any? {
            val r = m[k]
            return when (k) {
                "a" -> r.asLong()
                "b" -> r.asLong().also { if (it < Int.MIN_VALUE || it > Int.MAX_VALUE) throw FlexException(ErrorKind.OutOfRange, r.offset, "$it") }.toInt()
                "c" -> r.asDouble()
                "d" -> r.asBool()
                "e" -> if (r.isNull) null else r.asLong()
                else -> r.asString()
            }
        }
        var checked = 0
        for (wide in listOf(false, true)) {
            for ((i, value) in stored.withIndex()) {
                for (field in listOf("a", "b", "c", "d", "e", "f")) {
                    val bytes = FlexBuilder().apply {
                        if (wide) forceMinWidth(8)
                        startMap()
                        for (k in listOf("a", "b", "c", "d", "e", "f")) {
                            key(k)
                            if (k == field) value() else when (k) { "a", "b", "e" -> int(i); "c" -> double(i + 0.25); "d" -> bool(i % 2 == 0); else -> string("t$i") }
                        }
                        endMap()
                    }.finish()
                    val m = FlexRef.root(bytes)
                    val want = runCatching {
                        val v = listOf("a", "b", "c", "d", "e", "f").map { expect(m, it) }
                        Scalars(v[0] as Long, v[1] as Int, v[2] as Double, v[3] as Boolean, v[4] as Long?, v[5] as String)
                    }
                    val got = runCatching { flex.decodeFromByteArray(Scalars.serializer(), bytes) }
                    val context = "value $i in field $field (wide $wide)"
                    if (want.isSuccess) {
                        assertEquals(want.getOrThrow(), got.getOrThrow(), context)
                    } else {
                        val e = got.exceptionOrNull()
                        assert(e is FlexException && e.kind == (want.exceptionOrNull() as FlexException).kind) { "$context: $e vs ${want.exceptionOrNull()}" }
                    }
                    checked++
                }
            }
        }
        assertEquals(2 * 13 * 6, checked)
    }

    /**
     * Hostile bytes through the format: random mutations of encoded records
     * end in a value, a [FlexException] or kotlinx's own
     * [kotlinx.serialization.SerializationException] (a missing field),
     * never anything else (no out-of-bounds read, no cast error).
     */
    @Test
    fun mutatedBytesFailOnlyWithFlexOrSerializationErrors() {
        val flex = Flex()
        val rnd = java.util.Random(16)
        val seeds = listOf(
            Mixed(7, "ünï", listOf("a", "bb"), listOf(1.5, -2.0), intArrayOf(1, 300, -70000), Scalars(1, 2, 3.5, true, null, "f"), mapOf("x" to 1L, "yy" to 2L)),
            Mixed(-1, "", emptyList(), emptyList(), IntArray(0), null, emptyMap()),
        ).map { flex.encodeToByteArray(Mixed.serializer(), it) }
        var decoded = 0
        var refused = 0
        repeat(20_000) {
            val b = seeds[it % seeds.size].copyOf()
            repeat(1 + rnd.nextInt(4)) { b[rnd.nextInt(b.size)] = rnd.nextInt(256).toByte() }
            try {
                flex.decodeFromByteArray(Mixed.serializer(), b)
                decoded++
            } catch (e: FlexException) {
                refused++
            } catch (e: kotlinx.serialization.SerializationException) {
                refused++
            }
        }
        assert(decoded > 0 && refused > 0) { "decoded $decoded, refused $refused" }
    }

    private fun mapOf3(vararg entries: Pair<String, Any>): ByteArray {
        val b = FlexBuilder()
        b.startMap()
        for ((k, v) in entries.sortedBy { it.first }) {
            b.key(k)
            when (v) {
                is Long -> b.int(v)
                is String -> b.string(v)
                is Boolean -> b.bool(v)
            }
        }
        b.endMap()
        return b.finish()
    }

    @Test
    fun classesWithEveryElementPresentAreOfferedElementOrder() {
        val full = mapOf3("a" to "x", "b" to true, "c" to 7L)
        assertEquals(Triple3(7, "x", true), Flex.decodeFromByteArray(Triple3Serializer, full))
        assertTrue(Triple3Serializer.sequential == true)
        // An unknown key, or a missing one: keys are handed out one by one.
        val extra = mapOf3("a" to "y", "b" to false, "c" to 8L, "d" to 1L)
        assertEquals(Triple3(8, "y", false), Flex.decodeFromByteArray(Triple3Serializer, extra))
        assertFalse(Triple3Serializer.sequential!!)
        val missing = mapOf3("a" to "z", "c" to 9L)
        assertEquals(Triple3(9, "z", false), Flex.decodeFromByteArray(Triple3Serializer, missing))
        assertFalse(Triple3Serializer.sequential!!)
        // Element order never reads a neighbour's entry: every field of its own type.
        val wrongType = mapOf3("a" to 1L, "b" to true, "c" to 7L)
        assertThrows<FlexException> { Flex.decodeFromByteArray(Triple3Serializer, wrongType) }
    }

    @Test
    fun elementOrderAndKeyOrderDecodeTheSameValues() {
        val values = listOf(
            Reading("z", -5, Celsius(21.5), Scalars(1, 2, 3.5, true, null, "f"), Mood.SAD, listOf(1, 2, 3), null, Shape.Circle(2.0)),
            Reading("", Long.MAX_VALUE, Celsius(-0.5), null, Mood.HAPPY, emptyList(), "here", Shape.Rect(3, 4)),
        )
        for (v in values) {
            val bytes = Flex.encodeToByteArray(Reading.serializer(), v)
            // Every element present: read in element order.
            assertEquals(v, Flex.decodeFromByteArray(Reading.serializer(), bytes))
            // The same map with one more key: read in key order, to the same value.
            val plus = ReadingPlus(v.zeta, v.alpha, v.mid, v.inner, v.mood, v.list, v.maybe, v.beta)
            assertEquals(v, Flex.decodeFromByteArray(Reading.serializer(), Flex.encodeToByteArray(ReadingPlus.serializer(), plus)))
        }
        // Buffer after buffer of one class (remembered keys) decode alike.
        repeat(3) { for (v in values) assertEquals(v, Flex.decodeFromByteArray(Reading.serializer(), Flex.encodeToByteArray(Reading.serializer(), v))) }
    }
}
