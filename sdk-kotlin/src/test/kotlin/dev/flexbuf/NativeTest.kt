package dev.flexbuf

import dev.flexbuf.jvm.FlexNative
import dev.flexbuf.jvm.GenerateException
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import java.io.File
import java.util.concurrent.TimeUnit

class NativeTest {
    @Test
    fun coreOverJniAgreesWithKotlin() {
        FlexNative.load()
        val bytes = FlexBuilder().apply { startMap(); key("a"); int(1); key("b"); startVector(); string("x"); double(0.5); endVector(); endMap() }.finish()
        FlexNative.verifyNative(bytes)
        assertEquals(Json.toJson(bytes), FlexNative.toJsonNative(bytes))
        assertEquals(Json.toJson(bytes), Json.toJson(FlexNative.fromJsonNative("""{"b":["x",0.5],"a":1}""")))
        val bad = File(System.getProperty("flexbuf.repo", "..")).resolve("conformance/invalid/unsorted_keys_b_a.bin").readBytes()
        assertEquals(ErrorKind.UnsortedKeys, assertThrows<FlexException> { FlexNative.verifyNative(bad) }.kind)
    }

    @Test
    fun schemaFingerprintMatchesGeneratedCode() {
        // A compiled schema produced by the Rust core (written by xtask next to the generated coders).
        val compiled = File(System.getProperty("flexbuf.repo", "..")).resolve("sdk-kotlin/target/generated-test-sources/defects.schema.bin")
        if (!compiled.exists()) return
        assertTrue(FlexNative.checkFingerprint(compiled.readBytes(), "defects.Profile", defects.ProfileFlexCoder.FINGERPRINT))
    }

    @Test
    fun generatorOverJniWritesCodersOrReportsDiagnostics() {
        val dir = kotlin.io.path.createTempDirectory("flexbuf-gen").toFile()
        try {
            val good = dir.resolve("point.fxs").apply { writeText("namespace geo;\nmessage Point { x: f64; y: f64; }\n") }
            val written = FlexNative.generate("kotlin", good, dir.resolve("out"))
            assertEquals(1, written.size)
            assertTrue(written[0].readText().contains("data class Point("), written[0].readText())

            val bad = dir.resolve("bad.fxs").apply { writeText("message A { x: nosuch; }\n") }
            val e = assertThrows<GenerateException> { FlexNative.generate("kotlin", bad, dir.resolve("bad-out")) }
            assertTrue(!e.usage && e.message!!.contains("bad.fxs:1:"), e.message)
            assertTrue(assertThrows<GenerateException> { FlexNative.generate("cobol", good, dir) }.usage)
        } finally {
            dir.deleteRecursively()
        }
    }

    @Test
    fun generateCommandRunsTheGeneratorAsAJavaMainClass() {
        val dir = kotlin.io.path.createTempDirectory("flexbuf-gen-main").toFile()
        try {
            val good = dir.resolve("point.fxs").apply { writeText("namespace geo;\nmessage Point { x: f64; }\n") }
            val bad = dir.resolve("bad.fxs").apply { writeText("message A { x: nosuch; }\n") }
            fun run(vararg args: String): Pair<Int, String> {
                val java = File(System.getProperty("java.home"), "bin/java").path
                val p = ProcessBuilder(listOf(java, "-cp", System.getProperty("java.class.path"), "dev.flexbuf.jvm.Generate") + args)
                    .redirectErrorStream(true).start()
                assertTrue(p.waitFor(60, TimeUnit.SECONDS))
                return p.exitValue() to p.inputStream.readBytes().decodeToString()
            }
            val out = dir.resolve("out").path
            val (ok, printed) = run("--lang", "kotlin", "-o", out, good.path)
            assertEquals(0, ok, printed)
            assertTrue(File(out, "geo/Point.kt").readText().contains("data class Point("), printed)
            val (failed, diag) = run("-o", out, bad.path)
            assertEquals(1, failed, diag)
            assertTrue(diag.contains("bad.fxs:1:"), diag)
            assertEquals(2, run(good.path).first)
            assertEquals(2, run("--lang", "cobol", "-o", out, good.path).first)
        } finally {
            dir.deleteRecursively()
        }
    }

    private fun probe(path: String): String {
        val java = File(System.getProperty("java.home"), "bin/java").path
        val p = ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), "-Ddev.flexbuf.native.path=$path", "dev.flexbuf.NativeProbeKt")
            .redirectErrorStream(true).start()
        assertTrue(p.waitFor(60, TimeUnit.SECONDS))
        return p.inputStream.readBytes().decodeToString()
    }

    @Test
    fun missingOrMismatchedLibraryGivesAClearError() {
        assertTrue(probe("/nonexistent/libflexbuf_jni.so").contains("no such file"))
        val notOurs = File.createTempFile("notflexbuf", ".so").apply { writeText("not a library"); deleteOnExit() }
        assertTrue(probe(notOurs.path).contains("cannot load the flexbuf native library"))
    }
}
