/// A first-in, first-out queue: appends at the back, removes from the front, both in amortised
/// constant time. A removed element is released at once, not when the storage is next compacted.
@usableFromInline
package struct FIFOQueue<Element> {
    @usableFromInline var storage: [Element?] = []
    @usableFromInline var head = 0

    @inlinable
    package init() {}

    /// How many elements are waiting.
    @inlinable package var count: Int { storage.count - head }
    /// Whether no element is waiting.
    @inlinable package var isEmpty: Bool { head == storage.count }
    /// The waiting elements, oldest first.
    package var elements: [Element] { storage[head...].map(\.unsafelyUnwrapped) }

    /// The element that ``removeFirst()`` would return.
    @inlinable package var first: Element? { isEmpty ? nil : storage[head] }

    /// Adds `element` at the back.
    @inlinable
    package mutating func append(_ element: Element) {
        storage.append(element)
    }

    /// Removes and returns the front element. The queue must not be empty.
    @inlinable
    package mutating func removeFirst() -> Element {
        precondition(!isEmpty, "FIFOQueue.removeFirst() on an empty queue")
        if head == 0 && storage.count == 1 { return storage.removeLast().unsafelyUnwrapped }
        let element = storage[head].unsafelyUnwrapped
        storage[head] = nil
        head += 1
        if head == storage.count {
            storage.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 32 && head * 2 >= storage.count {
            storage.removeFirst(head)
            head = 0
        }
        return element
    }

    /// Replaces the back element with `element` and returns it. The queue must not be empty.
    @inlinable
    package mutating func replaceLast(with element: Element) -> Element {
        precondition(!isEmpty, "FIFOQueue.replaceLast(with:) on an empty queue")
        let index = storage.count - 1
        defer { storage[index] = element }
        return storage[index].unsafelyUnwrapped
    }

    /// Removes and returns the back element. The queue must not be empty.
    @inlinable
    package mutating func removeLast() -> Element {
        precondition(!isEmpty, "FIFOQueue.removeLast() on an empty queue")
        let element = storage.removeLast().unsafelyUnwrapped
        if head == storage.count {
            storage.removeAll(keepingCapacity: true)
            head = 0
        }
        return element
    }

    /// Whether `element` is waiting.
    @inlinable
    package func contains(_ element: Element) -> Bool where Element: Equatable {
        storage[head...].contains { $0 == element }
    }

    /// Removes every element and returns them, so that an owner holding a lock can release them
    /// after unlocking (rule 9).
    @inlinable
    package mutating func takeAll() -> FIFOQueue {
        defer { self = FIFOQueue() }
        return self
    }
}
