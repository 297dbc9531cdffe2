package dev.flexbuf.jvm

import dev.flexbuf.ErrorKind
import dev.flexbuf.FlexException
import java.io.File
import java.nio.file.Files
import java.nio.file.StandardCopyOption

/** Thrown by the native side; converted to [FlexException] before it reaches callers. */
public class NativeError(public val kind: String, public val offset: Long, message: String, public val path: String) :
    RuntimeException(message)

/**
 * The code generator refused a request ([usage]: unknown language, an option
 * for another language, an output directory that cannot be created) or found
 * errors in the schema; [message] is the generator's diagnostics, one
 * `file:line:column: ...` per problem.
 */
public class GenerateException(public val usage: Boolean, message: String) : RuntimeException(message)

/** The native library is missing, cannot be loaded, or is a different version than this jar expects. */
public class NativeLibraryException(message: String, cause: Throwable? = null) : RuntimeException(message, cause)

/**
 * The Rust core over JNI: verification, JSON conversion and schema fingerprints,
 * one native call per buffer, and the Rust code generator ([generate], used
 * by the Maven plugin).
 *
 * The library is loaded on first use from the path in the system property
 * [PATH_PROPERTY] when set, else from the jar's `dev/flexbuf/native/<os>-<arch>/`
 * folder (extracted to a temporary file). Before anything else the loader
 * checks [abiVersion] against [EXPECTED_ABI], so a stale or foreign library
 * fails with a [NativeLibraryException] that says which file and what it found.
 */
public object FlexNative {
    /** System property overriding the library location (a file path). */
    public const val PATH_PROPERTY: String = "dev.flexbuf.native.path"

    /** The ABI version this jar was built against (`ABI_VERSION` in sdk-kotlin/native). */
    public const val EXPECTED_ABI: Int = 2

    /** `<os>-<arch>`, the jar folder holding this platform's library (e.g. `linux-x86_64`). */
    public val platform: String by lazy {
        val os = System.getProperty("os.name").lowercase()
        val arch = when (val a = System.getProperty("os.arch").lowercase()) {
            "amd64", "x86_64" -> "x86_64"
            "aarch64", "arm64" -> "aarch64"
            else -> a
        }
        val o = when {
            os.startsWith("linux") -> "linux"
            os.startsWith("mac") || os.startsWith("darwin") -> "macos"
            os.startsWith("windows") -> "windows"
            else -> os.replace(' ', '_')
        }
        "$o-$arch"
    }

    private val fileName: String
        get() = when {
            platform.startsWith("macos") -> "libflexbuf_jni.dylib"
            platform.startsWith("windows") -> "flexbuf_jni.dll"
            else -> "libflexbuf_jni.so"
        }

    /** The resource path of this platform's library inside the jar. */
    public val resourcePath: String get() = "/dev/flexbuf/native/$platform/$fileName"

    @Volatile
    private var loaded: Throwable? = null
    private var ready = false

    /** Loads and checks the library (idempotent); throws [NativeLibraryException] with the reason. */
    @Synchronized
    public fun load() {
        if (ready) return
        loaded?.let { throw NativeLibraryException(it.message ?: "native library unavailable", it) }
        try {
            val override = System.getProperty(PATH_PROPERTY)
            val source: String
            if (override != null) {
                val f = File(override)
                if (!f.isFile) throw NativeLibraryException("$PATH_PROPERTY=$override: no such file")
                source = f.absolutePath
                System.load(source)
            } else {
                val stream = FlexNative::class.java.getResourceAsStream(resourcePath)
                    ?: throw NativeLibraryException(
                        "no native library for $platform in the jar (looked for $resourcePath); " +
                            "build it with `cargo xtask build-all` or set -D$PATH_PROPERTY=/path/to/$fileName",
                    )
                val tmp = Files.createTempFile("flexbuf_jni", fileName)
                stream.use { Files.copy(it, tmp, StandardCopyOption.REPLACE_EXISTING) }
                tmp.toFile().deleteOnExit()
                source = "$resourcePath (extracted to $tmp)"
                System.load(tmp.toAbsolutePath().toString())
            }
            val abi = try {
                abiVersion()
            } catch (e: UnsatisfiedLinkError) {
                throw NativeLibraryException("$source is not a flexbuf JNI library (no abiVersion): ${e.message}", e)
            }
            if (abi != EXPECTED_ABI) {
                throw NativeLibraryException("$source has ABI version $abi, this jar needs $EXPECTED_ABI: rebuild the native library")
            }
            ready = true
        } catch (e: NativeLibraryException) {
            loaded = e
            throw e
        } catch (e: UnsatisfiedLinkError) {
            val x = NativeLibraryException("cannot load the flexbuf native library: ${e.message}", e)
            loaded = x
            throw x
        }
    }

    /** True when the library is loaded and matches. */
    public val isAvailable: Boolean
        get() = try { load(); true } catch (_: NativeLibraryException) { false }

    @JvmStatic private external fun abiVersion(): Int
    @JvmStatic private external fun coreVersion(): String
    @JvmStatic private external fun verify(bytes: ByteArray)
    @JvmStatic private external fun toJson(bytes: ByteArray): String
    @JvmStatic private external fun fromJson(text: String): ByteArray
    @JvmStatic private external fun fingerprint(schema: ByteArray, typeName: String): Long
    @JvmStatic private external fun generate(lang: String, schema: String, output: String, tsInt64: String?): Array<String>

    private inline fun <R> call(block: () -> R): R {
        load()
        try {
            return block()
        } catch (e: NativeError) {
            val kind = ErrorKind.entries.firstOrNull { it.name == e.kind } ?: ErrorKind.Message
            throw FlexException(kind, e.offset.toInt(), e.message, e.path.removePrefix("$").ifEmpty { null })
        }
    }

    /** The version of the Rust core inside the library. */
    public fun nativeCoreVersion(): String = call { coreVersion() }

    /** Verifies [bytes] with the Rust core's verifier; throws [FlexException] with the core's error kind. */
    public fun verifyNative(bytes: ByteArray): Unit = call { verify(bytes) }

    /** Converts [bytes] to compact JSON with the Rust core. */
    public fun toJsonNative(bytes: ByteArray): String = call { toJson(bytes) }

    /** Converts JSON [text] to a FlexBuffer with the Rust core. */
    public fun fromJsonNative(text: String): ByteArray = call { fromJson(text) }

    /** The fingerprint of [typeName] in a compiled schema ([compiledSchema] = `Schema::to_bytes`). */
    public fun schemaFingerprint(compiledSchema: ByteArray, typeName: String): Long = call { fingerprint(compiledSchema, typeName) }

    /** True when the generated coder's fingerprint equals the one the compiled schema gives [typeName]. */
    public fun checkFingerprint(compiledSchema: ByteArray, typeName: String, expected: Long): Boolean =
        schemaFingerprint(compiledSchema, typeName) == expected

    /**
     * Runs the Rust code generator (the one `flexbuf gen` runs): generates
     * [lang] coders (`kotlin`, `rust`, `python`, `ts`) from [schema] and its
     * imports into [output] (created when missing) and returns the files
     * written. [tsInt64] is the TypeScript `i64`/`u64` policy (`auto`,
     * `checked`, `bigint`), for `ts` only. Throws [GenerateException] with the
     * generator's diagnostics when the request or the schema is wrong, and
     * [NativeLibraryException] when the library cannot be loaded.
     *
     * ```
     * val files = FlexNative.generate("kotlin", File("shop.fxs"), File("build/generated/flexbuf"))
     * ```
     */
    @JvmStatic
    @JvmOverloads
    public fun generate(lang: String, schema: File, output: File, tsInt64: String? = null): List<File> {
        load()
        return generate(lang, schema.path, output.path, tsInt64).map(::File)
    }
}
