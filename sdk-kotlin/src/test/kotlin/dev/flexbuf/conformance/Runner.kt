package dev.flexbuf.conformance

import dev.flexbuf.ErrorKind
import dev.flexbuf.FlexBuffers
import dev.flexbuf.FlexBuilder
import dev.flexbuf.FlexCoder
import dev.flexbuf.FlexException
import dev.flexbuf.FlexRef
import dev.flexbuf.FlexType
import dev.flexbuf.Json as FlexJson
import dev.flexbuf.BuilderOptions
import dev.flexbuf.verify
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonArray
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonNull
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.boolean
import kotlinx.serialization.json.buildJsonArray
import kotlinx.serialization.json.contentOrNull
import kotlinx.serialization.json.jsonArray
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import java.io.File
import kotlin.system.exitProcess

/** One category's outcome, printed as the conformance result line. */
data class Result(val category: String, val passed: Int, val total: Int, val failures: List<String>) {
    fun line(): String {
        val f = failures.take(50).joinToString(",") { JsonPrimitive(it.take(300)).toString() }
        return "{\"lang\":\"kotlin\",\"category\":\"$category\",\"passed\":$passed,\"total\":$total,\"failures\":[$f]}"
    }
}

/** The Kotlin conformance runner over `conformance/`: build cases, invalid corpus, typed cases. */
object Runner {
    fun hex(b: ByteArray): String {
        val digits = "0123456789abcdef"
        val out = CharArray(2 * b.size)
        for (i in b.indices) {
            val v = b[i].toInt() and 0xff
            out[2 * i] = digits[v ushr 4]
            out[2 * i + 1] = digits[v and 15]
        }
        return String(out)
    }

    fun unhex(s: String): ByteArray = ByteArray(s.length / 2) { s.substring(2 * it, 2 * it + 2).toInt(16).toByte() }

    private fun intArgSigned(e: JsonElement): Long = e.jsonPrimitive.content.toBigInteger().toLong()

    /** Replays a case's ops; returns the finished bytes. */
    fun replay(flags: Int, ops: JsonArray): ByteArray {
        val b = FlexBuilder(BuilderOptions(share = flags and 7))
        val slots = ArrayList<dev.flexbuf.ValueHandle>()
        for (op in ops) {
            val a = op.jsonArray
            val name = a[0].jsonPrimitive.content
            fun arg(i: Int) = a[i]
            when (name) {
                "null" -> b.nul()
                "bool" -> b.bool(arg(1).jsonPrimitive.boolean)
                "int" -> b.int(intArgSigned(arg(1)))
                "uint" -> b.uint(intArgSigned(arg(1)))
                "float" -> b.float(Float.fromBits(arg(1).jsonPrimitive.content.toLong(16).toInt()))
                "double" -> b.double(Double.fromBits(arg(1).jsonPrimitive.content.toULong(16).toLong()))
                "key" -> b.key(arg(1).jsonPrimitive.content)
                "string" -> b.string(arg(1).jsonPrimitive.content)
                "blob" -> b.blob(unhex(arg(1).jsonPrimitive.content))
                "indirect_int" -> b.indirectInt(intArgSigned(arg(1)))
                "indirect_uint" -> b.indirectUInt(intArgSigned(arg(1)))
                "indirect_float" -> b.indirectFloat(Float.fromBits(arg(1).jsonPrimitive.content.toLong(16).toInt()))
                "indirect_double" -> b.indirectDouble(Double.fromBits(arg(1).jsonPrimitive.content.toULong(16).toLong()))
                "start_map" -> b.startMap()
                "end_map" -> b.endMap()
                "start_vector" -> b.startVector()
                "end_vector" -> b.endVector(arg(1).jsonPrimitive.boolean, arg(2).jsonPrimitive.boolean)
                "scalar_vector", "fixed_vector", "typed_vector" -> {
                    val kind = arg(1).jsonPrimitive.content
                    val width = arg(2).jsonPrimitive.content.toInt()
                    val values = arg(3).jsonArray
                    val elem = when (kind) {
                        "int" -> FlexType.INT
                        "uint" -> FlexType.UINT
                        "float" -> FlexType.FLOAT
                        else -> FlexType.BOOL
                    }
                    val raw = LongArray(values.size) {
                        val p = values[it].jsonPrimitive
                        when (kind) {
                            "float" -> p.content.toULong(16).toLong()
                            "bool" -> if (p.boolean) 1L else 0L
                            else -> intArgSigned(p)
                        }
                    }
                    if (name == "typed_vector") {
                        b.startVector()
                        for (v in raw) when (kind) {
                            "int" -> b.int(v)
                            "uint" -> b.uint(v)
                            "bool" -> b.bool(v != 0L)
                            else -> if (width == 4) b.float(Float.fromBits(v.toInt())) else b.double(Double.fromBits(v))
                        }
                        b.endVector(typed = true, fixed = false)
                    } else {
                        b.scalarVector(elem, width, raw, fixed = name == "fixed_vector")
                    }
                }
                "force_min_width" -> b.forceMinWidth(arg(1).jsonPrimitive.content.toInt())
                "mark" -> slots.add(b.lastValue())
                "reuse" -> b.reuseValue(slots[arg(1).jsonPrimitive.content.toInt()])
                else -> error("unknown op $name")
            }
        }
        return b.finish()
    }

    /** The annotated notation of [r]. */
    fun annotate(r: FlexRef): JsonElement {
        val t = r.type
        val inline = t == FlexType.NULL || t == FlexType.BOOL || t == FlexType.INT || t == FlexType.UINT || t == FlexType.FLOAT
        val width = when {
            inline -> r.slotWidth
            t == FlexType.KEY -> 1
            else -> r.width
        }
        val payload: JsonElement = when (t) {
            FlexType.NULL -> JsonNull
            FlexType.BOOL -> JsonPrimitive(r.asBool())
            FlexType.INT, FlexType.INDIRECT_INT -> JsonPrimitive(r.asLong().toString())
            FlexType.UINT, FlexType.INDIRECT_UINT -> JsonPrimitive(r.asULong().toString())
            FlexType.FLOAT, FlexType.INDIRECT_FLOAT -> JsonPrimitive(floatName(r.asDouble()))
            FlexType.KEY, FlexType.STRING -> JsonPrimitive(r.asString())
            FlexType.BLOB -> JsonPrimitive(hex(r.asBlob()))
            FlexType.MAP -> {
                val m = r.asMap()
                buildJsonArray { for (i in 0 until m.size) add(buildJsonArray { add(JsonPrimitive(m.key(i))); add(annotate(m.value(i))) }) }
            }
            else -> {
                val v = r.asVector()
                buildJsonArray { for (i in 0 until v.size) add(annotate(v[i])) }
            }
        }
        return buildJsonArray { add(JsonPrimitive(t.wireName)); add(JsonPrimitive(width)); add(payload) }
    }

    private fun floatName(d: Double): String = when {
        d.isNaN() -> "nan"
        d == Double.POSITIVE_INFINITY -> "inf"
        d == Double.NEGATIVE_INFINITY -> "-inf"
        else -> FlexJson.formatDouble(d)
    }

    private fun parseFloatName(s: String): Double = when (s) {
        "nan" -> Double.NaN
        "inf" -> Double.POSITIVE_INFINITY
        "-inf" -> Double.NEGATIVE_INFINITY
        else -> s.toDouble()
    }

    /** Compares annotated values, floats by parsed value (exact, sign of zero included). */
    fun sameAnnotated(a: JsonElement, b: JsonElement): Boolean {
        if (a is JsonArray && b is JsonArray) {
            if (a.size != b.size) return false
            if (a.size == 3 && a[0] is JsonPrimitive && (a[0] as JsonPrimitive).isString &&
                (a[0].jsonPrimitive.content == "float" || a[0].jsonPrimitive.content == "indirect_float") &&
                b[0] == a[0]
            ) {
                val x = parseFloatName(a[2].jsonPrimitive.content)
                val y = parseFloatName(b[2].jsonPrimitive.content)
                return a[1].jsonPrimitive.content.toInt() == b[1].jsonPrimitive.content.toInt() &&
                    (x.toRawBits() == y.toRawBits() || (x.isNaN() && y.isNaN()))
            }
            return a.indices.all { sameAnnotated(a[it], b[it]) }
        }
        if (a is JsonPrimitive && b is JsonPrimitive) {
            if (a is JsonNull || b is JsonNull) return a == b
            return a.content == b.content
        }
        return a == b
    }

    fun cases(root: File): List<JsonObject> =
        (root.resolve("cases").listFiles { f -> f.name.endsWith(".json") } ?: emptyArray()).sortedBy { it.name }
            .flatMap { Json.parseToJsonElement(it.readText()).jsonObject["cases"]!!.jsonArray.map { c -> c.jsonObject } }

    fun bytesCategory(cases: List<JsonObject>): Result {
        val fails = ArrayList<String>()
        var passed = 0
        for (c in cases) {
            val name = c["name"]!!.jsonPrimitive.content
            val expected = c["bytes"]!!.jsonPrimitive.content
            val refuse = c["deviation"]?.jsonPrimitive?.contentOrNull == "typed-string-vector"
            try {
                val got = hex(replay(c["flags"]?.jsonPrimitive?.content?.toInt() ?: 1, c["ops"]!!.jsonArray))
                if (refuse) fails.add("$name: builder accepted a typed string vector")
                else if (got == expected) passed++ else fails.add("$name: got $got")
            } catch (e: FlexException) {
                if (refuse) passed++ else fails.add("$name: ${e.message}")
            }
        }
        return Result("bytes identical", passed, cases.size, fails)
    }

    fun valuesCategory(cases: List<JsonObject>): Result {
        val fails = ArrayList<String>()
        var passed = 0
        for (c in cases) {
            val name = c["name"]!!.jsonPrimitive.content
            try {
                val bytes = unhex(c["bytes"]!!.jsonPrimitive.content)
                val want = c["value"]!!
                val trusted = annotate(verify(bytes).root())
                val checked = annotate(FlexRef.root(bytes))
                when {
                    !sameAnnotated(trusted, want) -> fails.add("$name: verified read gave $trusted")
                    !sameAnnotated(checked, want) -> fails.add("$name: checked read gave $checked")
                    else -> passed++
                }
            } catch (e: FlexException) {
                fails.add("$name: ${e.message}")
            }
        }
        return Result("values identical", passed, cases.size, fails)
    }

    class Walk(var values: Int = 0, var bytes: Long = 0)

    /** The full checked read of the invalid-corpus rules: depth 64, 200,000 values, 16 MiB of text. */
    fun checkedRead(r: FlexRef, depth: Int = 0, w: Walk = Walk(), maxValues: Int = 200_000) {
        if (++w.values > maxValues) throw FlexException(ErrorKind.BudgetExceeded, r.offset)
        when (r.type) {
            FlexType.NULL -> {}
            FlexType.BOOL -> r.asBool()
            FlexType.INT, FlexType.INDIRECT_INT -> r.asLong()
            FlexType.UINT, FlexType.INDIRECT_UINT -> r.asULong()
            FlexType.FLOAT, FlexType.INDIRECT_FLOAT -> r.asDouble()
            FlexType.KEY, FlexType.STRING, FlexType.BLOB -> {
                val range = r.bytesRange()
                val start = (range ushr 32).toInt()
                val end = range.toInt()
                w.bytes += end - start
                if (w.bytes > 16L shl 20) throw FlexException(ErrorKind.BudgetExceeded, r.offset)
                if (r.type != FlexType.BLOB) {
                    r.asString()
                    if (end >= r.buffer.size || r.buffer[end].toInt() != 0) throw FlexException(ErrorKind.MissingNul, end)
                }
            }
            FlexType.MAP -> {
                if (depth + 1 > 64) throw FlexException(ErrorKind.DepthLimit, r.offset)
                val m = r.asMap()
                for (i in 0 until m.size) {
                    w.bytes += m.key(i).length
                    if (w.bytes > 16L shl 20) throw FlexException(ErrorKind.BudgetExceeded, r.offset)
                    checkedRead(m.value(i), depth + 1, w, maxValues)
                }
            }
            else -> {
                if (depth + 1 > 64) throw FlexException(ErrorKind.DepthLimit, r.offset)
                val v = r.asVector()
                for (i in 0 until v.size) checkedRead(v[i], depth + 1, w, maxValues)
            }
        }
    }

    private inline fun fails(block: () -> Unit): FlexException? = try { block(); null } catch (e: FlexException) { e }

    fun invalidCategory(root: File): Result {
        val dir = root.resolve("invalid")
        val manifest = Json.parseToJsonElement(dir.resolve("manifest.json").readText()).jsonArray
        val exempt = setOf("unsorted_keys", "duplicate_keys", "key_value_length_mismatch")
        val failures = ArrayList<String>()
        var passed = 0
        for (e in manifest) {
            val o = e.jsonObject
            val file = o["file"]!!.jsonPrimitive.content
            val cls = o["class"]!!.jsonPrimitive.content
            val bytes = dir.resolve(file).readBytes()
            val problem: String? = guarded {
                if (!o["valid"]!!.jsonPrimitive.boolean) {
                    val want = o["error"]?.jsonPrimitive?.contentOrNull ?: "any"
                    val ve = fails { verify(bytes) }
                    when {
                        ve == null -> "verifier accepted it"
                        want != "any" && ve.kind.name != want -> "verifier said ${ve.kind}, expected $want"
                        fails { FlexJson.toJson(bytes) } == null -> "to_json accepted it"
                        cls !in exempt && fails { checkedRead(FlexRef.root(bytes)) } == null -> "checked read accepted it"
                        else -> { if (cls in exempt) fails { checkedRead(FlexRef.root(bytes)) }; null }
                    }
                } else {
                    val ve = fails { verify(bytes) }
                    if (ve != null) "verifier rejected it: ${ve.message}"
                    else if (o["expand"]?.jsonPrimitive?.contentOrNull == "budget") {
                        val je = fails { FlexJson.toJson(bytes) }
                        val ce = fails { checkedRead(FlexRef.root(bytes)) }
                        if (je?.kind != ErrorKind.BudgetExceeded) "to_json did not fail on the budget: ${je?.kind}"
                        else if (ce?.kind != ErrorKind.BudgetExceeded) "checked read did not fail on the budget: ${ce?.kind}"
                        else null
                    } else {
                        checkedRead(FlexRef.root(bytes))
                        val a = annotate(FlexRef.root(bytes))
                        val b = annotate(verify(bytes).root())
                        val json = o["json"]?.jsonPrimitive?.contentOrNull
                        if (!sameAnnotated(a, b)) "checked and verified reads differ"
                        else if (json != null && FlexJson.toJson(bytes) != json) "to_json gave ${FlexJson.toJson(bytes)}"
                        else null
                    }
                }
            }
            if (problem == null) passed++ else failures.add("$file: $problem")
        }
        return Result("invalid rejected", passed, manifest.size, failures)
    }

    /** The problem [block] reports, or what it threw: any exception here is a failure of the case, not of the run. */
    private inline fun guarded(block: () -> String?): String? = try {
        block()
    } catch (x: FlexException) {
        "unexpected error ${x.message}"
    } catch (x: RuntimeException) {
        "crash: $x"
    } catch (x: StackOverflowError) {
        "crash: stack overflow"
    }

    /** One damaged buffer with the Rust core's outcomes (`ok` or an `ErrorKind` name). */
    class Damaged(val name: String, val verify: String, val json: String, val bytes: ByteArray)

    /** The file `flexbuf-conformance damage` writes (conformance/README.md, "Agreement"). */
    fun loadDamaged(file: File): List<Damaged> {
        val data = java.nio.ByteBuffer.wrap(file.readBytes()).order(java.nio.ByteOrder.LITTLE_ENDIAN)
        val magic = ByteArray(16).also { data.get(it) }
        require(magic.contentEquals("FLEXBUF-DAMAGED\u0001".toByteArray(Charsets.ISO_8859_1))) { "$file is not a damaged-buffer file" }
        return List(data.getInt()) {
            val meta = ByteArray(data.getInt()).also { data.get(it) }.toString(Charsets.UTF_8).split('\t')
            Damaged(meta[0], meta[1], meta[2], ByteArray(data.getInt()).also { data.get(it) })
        }
    }

    private fun outcome(block: () -> Unit): String = try { block(); "ok" } catch (e: FlexException) { e.kind.name }

    /** Full reads of damaged DAG bombs stop here (they stay valid after some mutations). */
    private const val AGREEMENT_VALUES = 20_000

    /**
     * One damaged buffer: the verifier gives the core's verdict (the same error kind); an accepted one reads fully through
     * the checked reader (the same as the verified read) and converts to JSON with the core's outcome;
     * a rejected one fails JSON conversion. Only [FlexException] may be thrown.
     */
    fun checkDamaged(d: Damaged): String? {
        val ours = outcome { verify(d.bytes) }
        if (ours != d.verify) return "core says ${d.verify}, verify says $ours"
        val walk = outcome { checkedRead(FlexRef.root(d.bytes), maxValues = AGREEMENT_VALUES) }
        val json = outcome { FlexJson.toJson(d.bytes) }
        if (d.verify != "ok") {
            return when (json) {
                "ok" -> "to_json accepted a buffer verify rejects"
                d.verify -> null
                else -> "to_json fails with $json, the core's verify with ${d.verify}"
            }
        }
        if (json != d.json) return "to_json gives $json, the core ${d.json}"
        if (walk == "BudgetExceeded") return null
        if (walk != "ok") return "checked read of an accepted buffer failed with $walk"
        return if (sameAnnotated(annotate(FlexRef.root(d.bytes)), annotate(verify(d.bytes).root()))) null
        else "checked and verified reads differ"
    }

    fun agreementCategory(file: File): Result {
        val failures = ArrayList<String>()
        var passed = 0
        val all = loadDamaged(file)
        for (d in all) {
            val problem = guarded { checkDamaged(d) }
            if (problem == null) passed++ else failures.add("${d.name}: $problem")
        }
        return Result("agreement", passed, all.size, failures)
    }

    /** Registrars of generated code, found by the schema's namespace and file stem. */
    private val coderCache = HashMap<String, Map<String, FlexCoder<*>>>()

    fun codersFor(root: File, schema: String): Map<String, FlexCoder<*>> = coderCache.getOrPut(schema) {
        val f = root.resolve(schema)
        val ns = Regex("""(?m)^\s*namespace\s+([A-Za-z0-9_.]+)\s*;""").find(f.readText())?.groupValues?.get(1) ?: ""
        val stem = f.nameWithoutExtension.split('_', '-').joinToString("") { it.replaceFirstChar(Char::uppercaseChar) }
        val cls = Class.forName((if (ns.isEmpty()) "" else "$ns.") + "${stem}FlexRegistrar")
        val obj = cls.getField("INSTANCE").get(null)
        @Suppress("UNCHECKED_CAST")
        val coders = cls.getMethod("getCoders").invoke(obj) as List<FlexCoder<*>>
        coders.associateBy { it.typeName }
    }

    private fun kindName(k: ErrorKind): String? = when (k) {
        ErrorKind.MissingField -> "missing"
        ErrorKind.UnexpectedNull -> "null"
        ErrorKind.TypeMismatch, ErrorKind.ArrayLength -> "type"
        ErrorKind.OutOfRange -> "range"
        ErrorKind.UnknownEnumValue -> "enum"
        ErrorKind.BadUnion -> "union"
        else -> null
    }

    /**
     * What a typed decode did, comparable across entry points: `ok` and the
     * re-encoded bytes, or the error's kind and path. Only [FlexException] is an
     * outcome; anything else thrown propagates.
     */
    fun <T> typedOutcome(coder: FlexCoder<T>, decode: () -> T): String {
        val value = try {
            decode()
        } catch (e: FlexException) {
            return "error ${e.kind} at ${e.path ?: "$"}"
        }
        return "ok " + hex(FlexBuffers.encode(coder, value))
    }

    @Suppress("UNCHECKED_CAST")
    fun typedCategory(root: File): Result {
        val files = (root.resolve("typed").listFiles { f -> f.name.endsWith(".json") } ?: emptyArray()).sortedBy { it.name }
        val failures = ArrayList<String>()
        var passed = 0
        var total = 0
        for (file in files) {
            for (c in Json.parseToJsonElement(file.readText()).jsonObject["cases"]!!.jsonArray) {
                val o = c.jsonObject
                total++
                val name = o["name"]!!.jsonPrimitive.content
                val problem = try {
                    typedCase(root, o)
                } catch (e: Throwable) {
                    "crash: $e"
                }
                if (problem == null) passed++ else failures.add("$name: $problem")
            }
        }
        return Result("typed", passed, total, failures)
    }

    @Suppress("UNCHECKED_CAST")
    private fun typedCase(root: File, o: JsonObject): String? {
        val input = o["input"]?.jsonPrimitive?.content?.let(::unhex) ?: root.resolve(o["input_file"]!!.jsonPrimitive.content).readBytes()
        val coder = codersFor(root, o["schema"]!!.jsonPrimitive.content)[o["type"]!!.jsonPrimitive.content] as FlexCoder<Any?>?
            ?: return "no generated coder for ${o["type"]}"
        val expect = o["expect"]!!.jsonObject
        val verified = try { verify(input) } catch (e: FlexException) { null }
        val err = expect["error"]?.jsonObject
        if (verified == null) {
            return if (err?.get("kind")?.jsonPrimitive?.content == "invalid") null else "verifier rejected the input"
        }
        // The one-pass checked decode must agree with verify-then-decode on every buffer the verifier accepts.
        val onePass = typedOutcome(coder) { FlexBuffers.decode(coder, input) }
        val strict = typedOutcome(coder) { FlexBuffers.decode(coder, verified) }
        if (onePass != strict) return "one-pass decode: $onePass; verify then decode: $strict"
        val value = try {
            FlexBuffers.decode(coder, verified)
        } catch (e: FlexException) {
            if (err == null) return "decode failed: ${e.message}"
            val kind = kindName(e.kind) ?: return "unexpected error ${e.message}"
            val wantKind = err["kind"]!!.jsonPrimitive.content
            val wantPath = err["path"]?.jsonPrimitive?.contentOrNull
            val path = e.path ?: "$"
            return if (kind == wantKind && path == wantPath) null else "error $kind at $path, expected $wantKind at $wantPath"
        }
        if (err != null) return "decoded, expected ${err["kind"]} at ${err["path"]}"
        val want = expect["bytes"]?.jsonPrimitive?.content ?: hex(root.resolve(expect["bytes_file"]!!.jsonPrimitive.content).readBytes())
        val got = hex(FlexBuffers.encode(coder, value))
        return if (got == want) null else "re-encoded bytes differ: got ${got.take(120)}"
    }

    /**
     * The outcome text of conformance/typed/README.md ("Typed agreement") of a one-pass decode of [input]
     * with [coder]: `bytes HEX` (the value re-encoded), or `KIND at PATH` (the case class of a schema error,
     * the core's kind name of any other error).
     */
    private fun agreementOutcome(coder: FlexCoder<Any?>, input: ByteArray): String {
        val value = try {
            FlexBuffers.decode(coder, input)
        } catch (e: FlexException) {
            return "${kindName(e.kind) ?: e.kind.name} at ${e.path ?: "$"}"
        }
        return "bytes " + hex(FlexBuffers.encode(coder, value))
    }

    /**
     * Typed agreement: every damaged input of [file] (written by `typed-conformance damage`) decoded in one
     * pass with the generated coders, against the Rust coders' outcome: on a buffer the core's verifier
     * accepts, the same outcome; on any other, the same value whenever both decode one (errors may differ
     * there). Anything thrown but a [FlexException] fails the item.
     */
    @Suppress("UNCHECKED_CAST")
    fun typedAgreementCategory(root: File, file: File): Result {
        val failures = ArrayList<String>()
        var passed = 0
        var total = 0
        val cut = { t: String -> if (t.length <= 120) t else "${t.take(120)}... (${t.length} chars)" }
        for (item in Json.parseToJsonElement(file.readText()).jsonObject["items"]!!.jsonArray) {
            val o = item.jsonObject
            total++
            val problem = try {
                val coder = codersFor(root, o["schema"]!!.jsonPrimitive.content)[o["type"]!!.jsonPrimitive.content] as FlexCoder<Any?>?
                if (coder == null) {
                    "no generated coder for ${o["type"]}"
                } else {
                    val got = agreementOutcome(coder, unhex(o["input"]!!.jsonPrimitive.content))
                    val want = o["expect"]!!.jsonPrimitive.content
                    when {
                        got == want -> null
                        o["verify"]!!.jsonPrimitive.content == "ok" -> "got ${cut(got)}, Rust ${cut(want)} (a valid buffer)"
                        got.startsWith("bytes ") && want.startsWith("bytes ") ->
                            "decoded another value than Rust: ${cut(got)}, Rust ${cut(want)}"
                        else -> null
                    }
                }
            } catch (e: Throwable) {
                "crash: $e"
            }
            if (problem == null) passed++ else if (failures.size < 50) failures.add("${o["name"]!!.jsonPrimitive.content}: $problem")
        }
        return Result("typed agreement", passed, total, failures)
    }

    fun run(root: File, categories: Set<String>): List<Result> {
        val out = ArrayList<Result>()
        val cases by lazy { cases(root) }
        if ("bytes" in categories) out.add(bytesCategory(cases))
        if ("values" in categories) out.add(valuesCategory(cases))
        if ("invalid" in categories) out.add(invalidCategory(root))
        val damaged = System.getenv("FLEXBUF_DAMAGED")
        if ("agreement" in categories && !damaged.isNullOrEmpty()) out.add(agreementCategory(File(damaged)))
        if ("typed" in categories) out.add(typedCategory(root))
        val typedDamaged = System.getenv("FLEXBUF_TYPED_DAMAGED")
        if ("typed" in categories && !typedDamaged.isNullOrEmpty()) out.add(typedAgreementCategory(root, File(typedDamaged)))
        return out
    }
}

/**
 * `java -cp ... dev.flexbuf.conformance.RunnerKt [CONFORMANCE_DIR] [categories...]`: prints one JSON line per
 * category; `agreement` runs when `FLEXBUF_DAMAGED` names a damaged-buffer file, and `typed agreement`
 * (with `typed`) when `FLEXBUF_TYPED_DAMAGED` names a file of damaged typed inputs.
 */
fun main(args: Array<String>) {
    val root = File(args.firstOrNull() ?: System.getProperty("flexbuf.conformance") ?: "../conformance")
    if (!root.resolve("cases").isDirectory) {
        System.err.println("no conformance cases under $root")
        exitProcess(2)
    }
    val cats = if (args.size > 1) args.drop(1).toSet() else setOf("bytes", "values", "invalid", "agreement", "typed")
    val results = Runner.run(root, cats)
    for (r in results) println(r.line())
    exitProcess(if (results.all { it.passed == it.total }) 0 else 1)
}

