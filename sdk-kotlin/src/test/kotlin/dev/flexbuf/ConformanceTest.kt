package dev.flexbuf

import dev.flexbuf.conformance.Runner
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.DynamicTest
import org.junit.jupiter.api.TestFactory
import java.io.File

/** The whole conformance suite, one test per category. */
class ConformanceTest {
    private val root = File(System.getProperty("flexbuf.repo", "..")).resolve("conformance")

    @TestFactory
    fun categories(): List<DynamicTest> = Runner.run(root, setOf("bytes", "values", "invalid", "typed")).map { r ->
        DynamicTest.dynamicTest(r.category) {
            assertEquals(emptyList<String>(), r.failures)
            assertEquals(r.total, r.passed)
            assert(r.total > 100)
        }
    }
}
