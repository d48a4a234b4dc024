/// A state machine whose deliveries all go through one ``DeliveryQueue``: the queue answers
/// for the delivery turn and for what was let go of, so the machine only says where it is.
@usableFromInline
package protocol DeliveryQueueStateMachine: DownstreamStateMachine where Discards == Streams.Discards {
    /// The values and the completion waiting for delivery, with the delivery turn.
    var queue: DeliveryQueue<Value, Failure> { get set }
}

extension DeliveryQueueStateMachine {
    @inlinable
    package var deliveryTurn: DeliveryTurn { queue.turn }

    @inlinable
    package var holderMustReport: Bool { queue.holderMustReport }

    @inlinable
    package mutating func holderLeftAskingNothing() { queue.holderLeftAskingNothing() }

    @inlinable
    package var hasDiscards: Bool { queue.hasDiscards }

    @inlinable
    package mutating func takeDiscards() -> Discards {
        queue.takeDiscards()
    }
}
