package shop.app

import dev.flexbuf.FlexBuffers
import dev.flexbuf.Json
import dev.flexbuf.verify
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Test
import shop.Line
import shop.Order
import shop.OrderFlexCoder
import shop.Status

class RoundTripTest {
    private val order = Order(
        id = 42u,
        customer = "Zoë",
        lines = listOf(Line(sku = "A-1", quantity = 3u, price = 9.5), Line(sku = "B-2", price = 0.25)),
        status = Status.Paid,
    )

    @Test
    fun anOrderRoundTripsThroughTheGeneratedCoder() {
        val bytes = Orders.encode(order)
        verify(bytes)
        assertEquals(order, Orders.decode(bytes))
        assertEquals(order, FlexBuffers.decodeStrict(OrderFlexCoder, bytes))
        assertNull(Orders.decode(bytes).note)
    }

    @Test
    fun theBytesCarryTheSchemasFieldNames() {
        val json = Json.toJson(Orders.encode(order))
        assertEquals(true, json.contains("\"customer\":\"Zoë\""), json)
        assertEquals(true, json.contains("\"sku\":\"A-1\""), json)
    }
}
