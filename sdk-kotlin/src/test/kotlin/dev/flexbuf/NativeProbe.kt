package dev.flexbuf

import dev.flexbuf.jvm.FlexNative
import dev.flexbuf.jvm.NativeLibraryException

/** Loads the native library in a fresh JVM and prints the outcome (used by NativeTest). */
fun main() {
    try {
        FlexNative.load()
        println("loaded")
    } catch (e: NativeLibraryException) {
        println(e.message)
    }
}
