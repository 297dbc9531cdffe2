package dev.flexbuf

import defects.Address
import defects.AddressFlexCoder
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import java.util.concurrent.CountDownLatch
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger

class ConcurrencyTest {
    @Test
    fun poolIsSafeAcrossThreadsAndBounded() {
        val pool = BuilderPool(maxPooled = 4, maxRetainedCapacity = 8192)
        val threads = 8
        val errors = AtomicInteger()
        val start = CountDownLatch(1)
        val exec = Executors.newFixedThreadPool(threads)
        repeat(threads) { t ->
            exec.submit {
                start.await()
                repeat(2000) { i ->
                    val a = Address("street $t-$i", "zip ${"é".repeat(i % 50)}")
                    val bytes = pool.use { b ->
                        val cx = EncodeContext()
                        AddressFlexCoder.encode(b, cx, a)
                        // Occasionally a huge value, to check the pool drops giant arrays.
                        if (i % 500 == 0) b.blob(ByteArray(100_000))
                        if (i % 500 == 0) { b.clear(); AddressFlexCoder.encode(b, EncodeContext(), a) }
                        b.finish()
                    }
                    if (FlexBuffers.decode(AddressFlexCoder, bytes) != a) errors.incrementAndGet()
                }
            }
        }
        start.countDown()
        exec.shutdown()
        assertTrue(exec.awaitTermination(60, TimeUnit.SECONDS))
        assertEquals(0, errors.get())
        assertTrue(pool.pooled <= 4)
        repeat(pool.pooled) {
            val b = pool.acquire()
            assertTrue(b.capacity <= 8192, "pooled builder kept ${b.capacity} bytes")
        }
    }

    @Test
    fun sharedPoolEncodesConcurrently() {
        val exec = Executors.newFixedThreadPool(6)
        val bad = AtomicInteger()
        repeat(6) { t ->
            exec.submit {
                repeat(3000) { i ->
                    val a = Address("s$t", "z$i")
                    if (FlexBuffers.decode(AddressFlexCoder, FlexBuffers.encode(AddressFlexCoder, a)) != a) bad.incrementAndGet()
                }
            }
        }
        exec.shutdown()
        assertTrue(exec.awaitTermination(60, TimeUnit.SECONDS))
        assertEquals(0, bad.get())
    }

    @Test
    fun registryIsSafeAcrossThreads() {
        val reg = FlexCoderRegistry()
        val exec = Executors.newFixedThreadPool(8)
        val missing = AtomicInteger()
        repeat(8) { t ->
            exec.submit {
                repeat(500) { i ->
                    val name = "t$t.n$i"
                    reg.register(name, AddressFlexCoder)
                    if (reg.find(name) !== AddressFlexCoder) missing.incrementAndGet()
                }
            }
        }
        exec.shutdown()
        assertTrue(exec.awaitTermination(60, TimeUnit.SECONDS))
        assertEquals(0, missing.get())
        assertEquals(8 * 500, reg.size)
    }
}
