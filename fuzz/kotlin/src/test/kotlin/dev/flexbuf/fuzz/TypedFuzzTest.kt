package dev.flexbuf.fuzz

import com.code_intelligence.jazzer.junit.FuzzTest
import dev.flexbuf.FlexBuffers
import dev.flexbuf.FlexCoder
import dev.flexbuf.FlexException
import dev.flexbuf.verify

/**
 * The coders generated from every conformance schema on arbitrary bytes: the first byte picks the
 * type ([CODERS], sorted by type name, index `byte % size`), the rest is the buffer, decoded three
 * ways: [FlexBuffers.decode] (the one-pass checked decode), [FlexBuffers.decodeKeyed] (every field
 * by key) and [FlexBuffers.decodeStrict] (verify, then decode). Must hold, as the SDK promises:
 * nothing throws but [FlexException] (no IndexOutOfBounds, no StackOverflowError, no
 * OutOfMemoryError); when [verify] accepts the bytes, the three give the same value (compared by
 * its re-encoded bytes) or the same error kind and path; when it rejects them, the verifying decode
 * fails (the other two may fail differently, or read what they can).
 *
 * Without JAZZER_FUZZ this runs the seeds under src/test/resources as a regression test; with
 * JAZZER_FUZZ=1 it fuzzes (fuzz/README.md).
 */
class TypedFuzzTest {
    /** A decode's outcome: the re-encoded bytes in hex, or the error's kind and path. */
    private fun <T> outcome(coder: FlexCoder<T>, how: String, decode: () -> T): String {
        val value = try {
            decode()
        } catch (e: FlexException) {
            return "${e.kind} at ${e.path ?: "$"}"
        } catch (e: Throwable) {
            throw IllegalStateException("${coder.typeName} $how threw $e, not a FlexException", e)
        }
        return "ok " + FlexBuffers.encode(coder, value).joinToString("") { "%02x".format(it) }
    }

    private fun <T> agree(coder: FlexCoder<T>, bytes: ByteArray) {
        val onePass = outcome(coder, "decode") { FlexBuffers.decode(coder, bytes) }
        val keyed = outcome(coder, "decodeKeyed") { FlexBuffers.decodeKeyed(coder, bytes) }
        val strict = outcome(coder, "decodeStrict") { FlexBuffers.decodeStrict(coder, bytes) }
        val valid = try { verify(bytes); true } catch (_: FlexException) { false }
        if (valid) {
            check(onePass == strict) { "${coder.typeName}: on a valid buffer decode gave $onePass, decodeStrict $strict" }
            check(onePass == keyed) { "${coder.typeName}: on a valid buffer decode gave $onePass, decodeKeyed $keyed" }
        } else {
            check(!strict.startsWith("ok")) { "${coder.typeName}: decodeStrict accepted a buffer verify rejects" }
        }
    }

    // The documented 20-minute run; the regression mode (no JAZZER_FUZZ) ignores it.
    @FuzzTest(maxDuration = "20m")
    fun typedDecode(data: ByteArray) {
        if (data.isEmpty()) return
        @Suppress("UNCHECKED_CAST")
        val coder = CODERS[(data[0].toInt() and 0xff) % CODERS.size] as FlexCoder<Any?>
        agree(coder, data.copyOfRange(1, data.size))
    }

    companion object {
        /**
         * Every generated coder, by type name. The seeds under src/test/resources name their type by
         * its index here (fuzz/kotlin/typed_seeds.py writes them): a schema change that adds or
         * renames a type moves the indices, and the seeds must be written again.
         */
        val CODERS: List<FlexCoder<*>> = listOf(
            arrays.ArraysFlexRegistrar.coders,
            defects.DefectsFlexRegistrar.coders,
            evo1.EvolutionV1FlexRegistrar.coders,
            evo2.EvolutionV2FlexRegistrar.coders,
            keywords.KeywordsFlexRegistrar.coders,
            fixtures.ApiResponseFlexRegistrar.coders,
            fixtures.ChatThreadFlexRegistrar.coders,
            fixtures.DeepNestingFlexRegistrar.coders,
            fixtures.Metrics96kFlexRegistrar.coders,
            fixtures.RepeatedMapsFlexRegistrar.coders,
            fixtures.StringFloodFlexRegistrar.coders,
            fixtures.TimeSeriesFlexRegistrar.coders,
            fixtures.UnicodeHeavyFlexRegistrar.coders,
            fixtures.UserProfileFlexRegistrar.coders,
            fixtures.WideMapFlexRegistrar.coders,
            fixtures.WidthBombFlexRegistrar.coders,
        ).flatten().sortedBy { it.typeName }
    }
}
