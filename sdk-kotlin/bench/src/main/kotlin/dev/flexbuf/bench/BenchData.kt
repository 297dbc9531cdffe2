package dev.flexbuf.bench

import com.google.flatbuffers.FlexBuffers
import com.google.flatbuffers.FlexBuffersBuilder
import dev.flexbuf.FlexBuffers as Typed
import dev.flexbuf.FlexCoder
import dev.flexbuf.serialization.Flex
import kotlinx.serialization.ExperimentalSerializationApi
import kotlinx.serialization.KSerializer
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonArray
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonNull
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.booleanOrNull
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import kotlinx.serialization.json.longOrNull
import kotlinx.serialization.protobuf.ProtoBuf
import kotlinx.serialization.serializer
import java.io.File
import java.nio.ByteBuffer

/**
 * One fixture prepared for every codec: the value decoded from the typed
 * golden input with the generated coder (so every codec sees the same value),
 * its encodings, and the fixture JSON as a tree for flatbuffers-java.
 */
@OptIn(ExperimentalSerializationApi::class)
class BenchData(val name: String) {
    private val conformance = File(System.getProperty("flexbuf.fixtures", "../../conformance/fixtures")).parentFile

    @Suppress("UNCHECKED_CAST")
    val coder: FlexCoder<Any?>
    val serializer: KSerializer<Any?>
    val value: Any?
    val flexTyped: ByteArray
    val flexFormat: ByteArray
    val json: String
    val proto: ByteArray?
    val tree: JsonElement
    val fbBytes: ByteBuffer
    val flex = Flex(registry = null)

    init {
        val cases = Json.parseToJsonElement(conformance.resolve("typed/fixtures.json").readText()).jsonObject["cases"] as JsonArray
        val case = cases.map { it.jsonObject }.first { it["name"]!!.jsonPrimitive.content == "fixtures/$name" }
        val type = case["type"]!!.jsonPrimitive.content
        val input = conformance.resolve(case["input_file"]!!.jsonPrimitive.content).readBytes()
        @Suppress("UNCHECKED_CAST")
        coder = Class.forName(type + "FlexCoder").getField("INSTANCE").get(null) as FlexCoder<Any?>
        @Suppress("UNCHECKED_CAST")
        serializer = serializer(Class.forName(type)) as KSerializer<Any?>
        value = Typed.decode(coder, input)
        flexTyped = Typed.encode(coder, value)
        flexFormat = flex.encodeToByteArray(serializer, value)
        json = Json.encodeToString(serializer, value)
        proto = try {
            ProtoBuf.encodeToByteArray(serializer, value).also { ProtoBuf.decodeFromByteArray(serializer, it) }
        } catch (e: Exception) {
            System.err.println("$name: kotlinx ProtoBuf cannot encode this shape: $e")
            null
        }
        tree = Json.parseToJsonElement(conformance.resolve("fixtures/$name.json").readText())
        fbBytes = fbEncode()
    }

    fun genEncode(): ByteArray = Typed.encode(coder, value)
    fun genDecode(): Any? = Typed.decode(coder, flexTyped)
    /** The verifier alone, on the generated encoder's bytes (what `decodeStrict` and `Json.toJson` pay first). */
    fun verify(): Any = dev.flexbuf.verify(flexTyped)
    fun flexEncode(): ByteArray = flex.encodeToByteArray(serializer, value)
    fun flexDecode(): Any? = flex.decodeFromByteArray(serializer, flexFormat)
    fun jsonEncode(): String = Json.encodeToString(serializer, value)
    fun jsonDecode(): Any? = Json.decodeFromString(serializer, json)
    private val jsonBytes: ByteArray = json.encodeToByteArray()

    /** kotlinx JSON to UTF-8 bytes (what goes on a wire): encode, then the String's UTF-8. */
    fun jsonEncodeBytes(): ByteArray = Json.encodeToString(serializer, value).encodeToByteArray()

    /** kotlinx JSON from UTF-8 bytes. */
    fun jsonDecodeBytes(): Any? = Json.decodeFromString(serializer, jsonBytes.decodeToString())
    fun protoEncode(): ByteArray? = proto?.let { ProtoBuf.encodeToByteArray(serializer, value) }
    fun protoDecode(): Any? = proto?.let { ProtoBuf.decodeFromByteArray(serializer, it) }

    /** flatbuffers-java `FlexBuffersBuilder` over the fixture's JSON tree (its natural input: no typed objects). */
    fun fbEncode(): ByteBuffer {
        val b = FlexBuffersBuilder(ByteBuffer.allocate(1 shl 16), FlexBuffersBuilder.BUILDER_FLAG_SHARE_KEYS)
        put(b, null, tree)
        return b.finish()
    }

    private fun put(b: FlexBuffersBuilder, key: String?, e: JsonElement) {
        when (e) {
            is JsonNull -> b.putNull(key)
            is JsonPrimitive -> when {
                e.isString -> b.putString(key, e.content)
                e.booleanOrNull != null -> b.putBoolean(key, e.booleanOrNull!!)
                e.longOrNull != null -> b.putInt(key, e.longOrNull!!)
                else -> b.putFloat(key, e.content.toDouble())
            }
            is JsonArray -> {
                val s = b.startVector()
                for (x in e) put(b, null, x)
                b.endVector(key, s, false, false)
            }
            is JsonObject -> {
                val s = b.startMap()
                for ((k, v) in e) put(b, k, v)
                b.endMap(key, s)
            }
        }
    }

    /** Every string value of the fixture (keys left out) as UTF-8, back to back, with their starts and lengths. */
    private val stringBytes: ByteArray
    private val stringStarts: IntArray
    private val stringLengths: IntArray

    init {
        val values = ArrayList<ByteArray>()
        fun collect(e: JsonElement) {
            when (e) {
                is JsonPrimitive -> if (e.isString) values.add(e.content.encodeToByteArray())
                is JsonArray -> e.forEach(::collect)
                is JsonObject -> e.values.forEach(::collect)
                else -> {}
            }
        }
        collect(tree)
        stringStarts = IntArray(values.size)
        stringLengths = IntArray(values.size)
        stringBytes = ByteArray(values.sumOf { it.size })
        var at = 0
        values.forEachIndexed { i, v ->
            v.copyInto(stringBytes, at)
            stringStarts[i] = at
            stringLengths[i] = v.size
            at += v.size
        }
    }

    /**
     * The JDK's UTF-8 decode of every string value of the fixture, one `String` each: a floor under any decoder
     * that starts from UTF-8 bytes and returns `String`s (keys are left out, so it is below what a decode
     * makes). Returns the total length, so nothing is optimised away.
     */
    fun utf8Strings(): Long {
        var n = 0L
        for (i in stringStarts.indices) n += String(stringBytes, stringStarts[i], stringLengths[i], Charsets.UTF_8).length
        return n
    }

    /** flatbuffers-java `FlexBuffers` read of every value (strings materialized); returns a checksum. */
    fun fbDecode(): Long = walk(FlexBuffers.getRoot(fbBytes))

    private fun walk(r: FlexBuffers.Reference): Long = when {
        r.isMap -> {
            val m = r.asMap()
            val keys = m.keys()
            var h = 0L
            for (i in 0 until m.size()) { h += keys.get(i).toString().length; h += walk(m.get(i)) }
            h
        }
        r.isVector -> {
            val v = r.asVector()
            var h = 0L
            for (i in 0 until v.size()) h += walk(v.get(i))
            h
        }
        r.isString -> r.asString().length.toLong()
        r.isFloat -> r.asFloat().toLong()
        r.isBoolean -> if (r.asBoolean()) 1 else 0
        r.isNull -> 0
        else -> r.asLong()
    }
}
