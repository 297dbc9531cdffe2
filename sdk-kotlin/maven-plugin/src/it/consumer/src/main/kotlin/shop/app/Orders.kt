package shop.app

import dev.flexbuf.FlexBuffers
import shop.Order
import shop.OrderFlexCoder

/** The consumer's own code, compiled against the generated coders. */
object Orders {
    fun encode(order: Order): ByteArray = FlexBuffers.encode(OrderFlexCoder, order)

    fun decode(bytes: ByteArray): Order = FlexBuffers.decode(OrderFlexCoder, bytes)
}
