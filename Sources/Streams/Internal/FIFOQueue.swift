/// A first-in, first-out queue: appends at the back, removes from the front, both in amortised
/// constant time. A removed element is released at once, not when the storage is next compacted.
package struct FIFOQueue<Element> {
    private var storage: [Element?] = []
    private var head = 0

    package init() {}

    /// How many elements are waiting.
    package var count: Int { storage.count - head }
    /// Whether no element is waiting.
    package var isEmpty: Bool { head == storage.count }
    /// The element that ``removeFirst()`` would return.
    package var first: Element? { isEmpty ? nil : storage[head] }

    /// Adds `element` at the back.
    package mutating func append(_ element: Element) {
        storage.append(element)
    }

    /// Removes and returns the front element. The queue must not be empty.
    package mutating func removeFirst() -> Element {
        precondition(!isEmpty, "FIFOQueue.removeFirst() on an empty queue")
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

    /// Replaces the back element, or appends `element` if the queue is empty.
    package mutating func replaceLast(with element: Element) {
        if isEmpty { append(element) } else { storage[storage.count - 1] = element }
    }

    /// Removes every element.
    package mutating func removeAll() {
        storage = []
        head = 0
    }
}
