package dev.flexbuf

import dev.flexbuf.conformance.Runner
import dev.flexbuf.serialization.Flex
import fixtures.DeepLevel
import fixtures.DeepLevelFlexCoder
import fixtures.StringFlood
import fixtures.StringFloodFlexCoder
import kotlinx.serialization.KSerializer
import kotlinx.serialization.SerializationException
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.jsonArray
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import kotlinx.serialization.serializer
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.fail
import java.io.File
import kotlin.random.Random

/**
 * The contract of the one-pass checked decode ([FlexBuffers.decode]) against
 * verify-then-decode ([FlexBuffers.decodeStrict]): for every buffer the
 * verifier accepts, the same value (compared by its re-encoded bytes) or the
 * same error kind and path; for any bytes, nothing thrown but [FlexException].
 */
class OnePassDecodeTest {
    private val conformance = File(System.getProperty("flexbuf.repo", "..")).resolve("conformance")

    /** A decode's outcome: the re-encoded bytes, or the error's kind and path. */
    private class Outcome(val bytes: ByteArray?, val error: String?) {
        override fun equals(other: Any?): Boolean =
            other is Outcome && error == other.error && (bytes?.contentEquals(other.bytes) ?: (other.bytes == null))

        override fun hashCode(): Int = error.hashCode()

        override fun toString(): String = error ?: "ok (${bytes!!.size} bytes)"
    }

    private fun <T> outcome(what: String, coder: FlexCoder<T>, decode: () -> T): Outcome {
        val value = try {
            decode()
        } catch (e: FlexException) {
            return Outcome(null, "${e.kind} at ${e.path ?: "$"}")
        } catch (t: Throwable) {
            fail("$what: ${coder.typeName} threw $t, not a FlexException")
        }
        return Outcome(FlexBuffers.encode(coder, value), null)
    }

    /** Checks the contract for [bytes] as [coder]'s type; returns true when the verifier accepted them. */
    private fun <T> check(what: String, coder: FlexCoder<T>, bytes: ByteArray): Boolean {
        val verified = try { verify(bytes) } catch (_: FlexException) { null }
        val onePass = outcome("$what one-pass", coder) { FlexBuffers.decode(coder, bytes) }
        val keyed = outcome("$what keyed", coder) { FlexBuffers.decodeKeyed(coder, bytes) }
        val strict = outcome("$what strict", coder) { FlexBuffers.decodeStrict(coder, bytes) }
        if (verified == null) {
            assertTrue(strict.error != null, "$what: decodeStrict accepted a buffer verify rejects")
            return false
        }
        assertEquals(strict, onePass, "$what as ${coder.typeName}")
        // On a valid buffer, reading by position (after the layout proof) must equal reading every field by key:
        // this is what catches a proof that accepts a keys vector it should not.
        assertEquals(keyed, onePass, "$what as ${coder.typeName}: positional and keyed decode differ")
        return true
    }

    @Suppress("UNCHECKED_CAST")
    private fun coders(schema: String): Collection<FlexCoder<Any?>> =
        Runner.codersFor(conformance, schema).values as Collection<FlexCoder<Any?>>

    private fun allCoders(): List<FlexCoder<Any?>> {
        val schemas = (conformance.resolve("schemas").listFiles { f -> f.name.endsWith(".fxs") } ?: emptyArray()).map { "schemas/${it.name}" } +
            (conformance.resolve("typed/schemas").listFiles { f -> f.name.endsWith(".fxs") } ?: emptyArray()).map { "typed/schemas/${it.name}" }
        return schemas.sorted().flatMap { coders(it) }
    }

    /** The typed goldens with the coder of their case in `typed/fixtures.json`. */
    private fun goldens(): List<Triple<String, FlexCoder<Any?>, ByteArray>> {
        val cases = Json.parseToJsonElement(conformance.resolve("typed/fixtures.json").readText()).jsonObject["cases"]!!.jsonArray
        val out = ArrayList<Triple<String, FlexCoder<Any?>, ByteArray>>()
        for (c in cases) {
            val o = c.jsonObject
            val coder = Runner.codersFor(conformance, o["schema"]!!.jsonPrimitive.content)[o["type"]!!.jsonPrimitive.content]
            @Suppress("UNCHECKED_CAST")
            coder as FlexCoder<Any?>
            val input = o["input_file"]!!.jsonPrimitive.content
            out.add(Triple(input, coder, conformance.resolve(input).readBytes()))
            val expect = o["expect"]!!.jsonObject["bytes_file"]?.jsonPrimitive?.content
            if (expect != null) out.add(Triple(expect, coder, conformance.resolve(expect).readBytes()))
        }
        return out
    }

    @Test
    fun invalidCorpusDecodesAlikeThroughEveryCoder() {
        val files = (conformance.resolve("invalid").listFiles { f -> f.name.endsWith(".bin") } ?: emptyArray()).sortedBy { it.name }
        assertTrue(files.size >= 200, "only ${files.size} invalid inputs")
        val coders = allCoders()
        assertTrue(coders.size >= 40, "only ${coders.size} coders")
        var accepted = 0
        for (f in files) {
            val bytes = f.readBytes()
            for (c in coders) if (check(f.name, c, bytes)) accepted++
        }
        // The corpus holds must-accept controls: the agreement branch must have run.
        assertTrue(accepted > 0, "the verifier accepted none of the corpus")
    }

    @Test
    fun typedGoldensAndTheirMutationsDecodeAlike() {
        val goldens = goldens()
        assertTrue(goldens.size >= 20, "only ${goldens.size} goldens")
        var mutations = 0
        var acceptedMutations = 0
        for ((name, coder, bytes) in goldens) {
            assertTrue(check(name, coder, bytes) || name.startsWith("typed/goldens/deep_nesting"), "$name is not valid")
            val rnd = Random(name.hashCode())
            val count = (1_500_000 / bytes.size).coerceIn(150, 700)
            repeat(count) { k ->
                val m = mutate(bytes, rnd)
                if (check("$name mutation $k", coder, m)) acceptedMutations++
                mutations++
            }
        }
        assertTrue(mutations >= 5000, "only $mutations mutations")
        // Mutations the verifier still accepts are the ones that compare values; there must be many.
        assertTrue(acceptedMutations >= 500, "only $acceptedMutations mutations were valid")
    }

    /** A copy of [b] with a few bytes changed: random values, 0, 0xff, off by one, or a copied window. */
    private fun mutate(b: ByteArray, rnd: Random): ByteArray {
        val m = b.copyOf()
        val edits = 1 + rnd.nextInt(3)
        repeat(edits) {
            // Bias towards the end, where the root and the outer containers' offsets live.
            val at = if (rnd.nextInt(4) == 0) m.size - 1 - rnd.nextInt(minOf(m.size, 16)) else rnd.nextInt(m.size)
            when (rnd.nextInt(6)) {
                0 -> m[at] = rnd.nextInt(256).toByte()
                1 -> m[at] = 0
                2 -> m[at] = 0xff.toByte()
                3 -> m[at] = (m[at] + 1).toByte()
                4 -> m[at] = (m[at] - 1).toByte()
                else -> {
                    val from = rnd.nextInt(m.size)
                    val n = minOf(4, m.size - maxOf(at, from))
                    b.copyInto(m, at, from, from + n)
                }
            }
        }
        return m
    }

    @Test
    fun aStringSharedByEveryElementHitsTheBudget() {
        val text = "x".repeat(4000)
        fun shared(n: Int): ByteArray {
            val b = FlexBuilder(BuilderOptions(share = Share.KEYS_AND_STRINGS))
            StringFloodFlexCoder.encode(b, EncodeContext(), StringFlood(strings = List(n) { text }))
            return b.finish()
        }
        val bomb = shared(2000)
        // 2,000 references to one 4,000-byte string: about 10 KB that would expand to 8 MB of text.
        assertTrue(bomb.size < 12_000, "${bomb.size} bytes: the string is not shared")
        verify(bomb)
        for (decode in listOf<(ByteArray) -> StringFlood>(
            { FlexBuffers.decode(StringFloodFlexCoder, it) },
            { FlexBuffers.decodeStrict(StringFloodFlexCoder, it) },
        )) {
            val e = try { decode(bomb); null } catch (e: FlexException) { e }
            assertEquals(ErrorKind.BudgetExceeded, e?.kind, "a shared string expanded past the budget")
            assertTrue(e!!.path!!.startsWith("$.strings["), "path ${e.path}")
        }
        // The same sharing within the budget decodes.
        assertEquals(100, FlexBuffers.decode(StringFloodFlexCoder, shared(100)).strings.size)
    }

    @Test
    fun nestingPastTheDepthLimitIsAnErrorNotAStackOverflow() {
        var v = DeepLevel(depth = 0)
        for (d in 1..2000) v = DeepLevel(depth = d.toLong(), child = v)
        val bytes = FlexBuffers.encode(DeepLevelFlexCoder, v)
        val e = try { FlexBuffers.decode(DeepLevelFlexCoder, bytes); null } catch (e: FlexException) { e }
        assertEquals(ErrorKind.DepthLimit, e?.kind)
        assertTrue(e!!.path!!.startsWith("$.child.child"), "path ${e.path}")
        // Within the limit the one-pass decode returns the value.
        var w = DeepLevel(depth = 0)
        for (d in 1..40) w = DeepLevel(depth = d.toLong(), child = w)
        assertEquals(w, FlexBuffers.decode(DeepLevelFlexCoder, FlexBuffers.encode(DeepLevelFlexCoder, w)))
    }

    @Test
    fun aMapThatContainsItselfEndsOnTheDepthLimit() {
        val ok = FlexBuffers.encode(DeepLevelFlexCoder, DeepLevel(depth = 1, child = DeepLevel(depth = 2)))
        val values = FlexRef.root(ok).asMap().values
        // Field 0 ("child") sits at the first value slot; an offset of 0 makes it point at the root map's own values.
        val cyclic = ok.copyOf()
        for (k in 0 until values.width) cyclic[values.data + k] = 0
        assertEquals(ErrorKind.Cycle, (try { verify(cyclic); null } catch (e: FlexException) { e })?.kind)
        val e = try { FlexBuffers.decode(DeepLevelFlexCoder, cyclic); null } catch (e: FlexException) { e }
        assertEquals(ErrorKind.DepthLimit, e?.kind)
        assertTrue(e!!.path!!.startsWith("$.child.child.child"), "path ${e.path}")
        // A context asking for no depth limit gets the cap, not a stack overflow, even on a fresh thread
        // of a 1 MB stack (the JVM's default) while the decoder may still be interpreted.
        val unbounded = DecodeContext(Budget.forInput(cyclic.size), maxDepth = Int.MAX_VALUE)
        var capped: Throwable? = null
        val t = Thread(null, {
            capped = try { DeepLevelFlexCoder.decode(FlexRef.root(cyclic), unbounded); null } catch (e: Throwable) { e }
        }, "one-megabyte stack", 1L shl 20)
        t.start()
        t.join()
        assertEquals(ErrorKind.DepthLimit, (capped as? FlexException)?.kind, "got $capped")
        // Entering the level below the cap fails: its path names MAX_DEPTH + 1 fields.
        assertEquals(DecodeContext.MAX_DEPTH + 1, (capped as FlexException).path!!.split(".child").size - 1)
    }

    /** The `Flex` format's outcome: its own re-encoding, or the exception's class and (for [FlexException]) kind and path. */
    private fun flexOutcome(what: String, ser: KSerializer<Any?>, decode: () -> Any?): Outcome {
        val flex = Flex(registry = null)
        val value = try {
            decode()
        } catch (e: FlexException) {
            return Outcome(null, "${e.kind} at ${e.path ?: "$"}")
        } catch (e: SerializationException) {
            return Outcome(null, e::class.simpleName)
        } catch (t: Throwable) {
            fail("$what: Flex threw $t, not a FlexException or SerializationException")
        }
        return Outcome(flex.encodeToByteArray(ser, value), null)
    }

    @Test
    fun flexFormatOnePassAgreesWithVerifyFirst() {
        val flex = Flex(registry = null)
        var accepted = 0
        for ((name, coder, bytes) in goldens()) {
            if (name.contains("deep_nesting")) continue
            @Suppress("UNCHECKED_CAST")
            val ser = serializer(Class.forName(coder.typeName)) as KSerializer<Any?>
            val encoded = flex.encodeToByteArray(ser, FlexBuffers.decode(coder, bytes))
            val rnd = Random(name.hashCode() + 1)
            val count = (400_000 / encoded.size).coerceIn(40, 300)
            for (k in 0..count) {
                val m = if (k == 0) encoded else mutate(encoded, rnd)
                val verified = try { verify(m); true } catch (_: FlexException) { false }
                val onePass = flexOutcome("$name mutation $k", ser) { flex.decodeFromByteArray(ser, m) }
                val strict = flexOutcome("$name mutation $k strict", ser) { flex.decodeFromByteArrayStrict(ser, m) }
                if (verified) {
                    accepted++
                    assertEquals(strict, onePass, "$name mutation $k")
                } else {
                    assertTrue(strict.error != null, "$name mutation $k: strict accepted what verify rejects")
                }
            }
        }
        assertTrue(accepted >= 200, "only $accepted valid inputs")
    }
}
