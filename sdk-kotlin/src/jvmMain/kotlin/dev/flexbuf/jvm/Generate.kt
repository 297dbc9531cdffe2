package dev.flexbuf.jvm

import java.io.File
import java.io.PrintStream
import kotlin.system.exitProcess

/**
 * The code generator as a JVM command, for builds that can run a Java main
 * class but not a Maven plugin (a Gradle `JavaExec` task, see
 * sdk-kotlin/README.md): the same generator `flexbuf gen` and the Maven
 * plugin run, from the jar's native library, with no Rust toolchain.
 *
 * ```
 * java -cp flexbuf-kotlin-0.1.0.jar:kotlin-stdlib.jar dev.flexbuf.jvm.Generate --lang kotlin -o build/gen a.fxs b.fxs
 * ```
 *
 * Exit status: 0 when every schema generated, 1 on schema errors (the
 * diagnostics on standard error), 2 on a usage error.
 */
public object Generate {
    private const val USAGE =
        "usage: dev.flexbuf.jvm.Generate [--lang kotlin|rust|python|ts] [--ts-int64 auto|checked|bigint] -o DIR SCHEMA.fxs..."

    /** Runs [run] with the process's streams and exits with its status. */
    @JvmStatic
    public fun main(args: Array<String>) {
        exitProcess(run(args.toList(), System.out, System.err))
    }

    /** Generates every schema in [args]; prints the files written to [out] and problems to [err]; returns the exit status. */
    public fun run(args: List<String>, out: PrintStream, err: PrintStream): Int {
        var lang = "kotlin"
        var tsInt64: String? = null
        var output: String? = null
        val schemas = mutableListOf<String>()
        val it = args.iterator()
        while (it.hasNext()) {
            when (val a = it.next()) {
                "--lang", "-o", "--ts-int64" -> {
                    if (!it.hasNext()) return usage(err, "$a needs a value")
                    val v = it.next()
                    when (a) {
                        "--lang" -> lang = v
                        "-o" -> output = v
                        else -> tsInt64 = v
                    }
                }
                "-h", "--help" -> {
                    out.println(USAGE)
                    return 0
                }
                else -> if (a.startsWith("-")) return usage(err, "unknown option $a") else schemas += a
            }
        }
        val dir = output ?: return usage(err, "-o DIR is required")
        if (schemas.isEmpty()) return usage(err, "no schema given")
        return try {
            for (s in schemas) {
                FlexNative.generate(lang, File(s), File(dir), tsInt64).forEach { out.println(it.path) }
            }
            0
        } catch (e: GenerateException) {
            err.println(e.message)
            if (e.usage) 2 else 1
        } catch (e: NativeLibraryException) {
            err.println(e.message)
            1
        }
    }

    private fun usage(err: PrintStream, problem: String): Int {
        err.println("$problem\n$USAGE")
        return 2
    }
}
