/// A publisher that produces nothing until ``connect()`` is called, so that several subscribers
/// can attach first and all see the same values.
///
/// ```swift
/// let shared = [1, 2].publisher.makeConnectable()
/// let first = shared.sink { print("first", $0) }
/// let second = shared.sink { print("second", $0) }
/// let connection = shared.connect()   // first 1, second 1, first 2, second 2
/// ```
public protocol ConnectablePublisher<Output, Failure>: Publisher {
    /// Subscribes to the upstream publisher and lets values flow; cancel the result to
    /// disconnect.
    func connect() -> any Cancellable
}

extension ConnectablePublisher {
    /// Connects automatically when the first subscriber attaches, and disconnects when the last
    /// one cancels.
    ///
    /// ```swift
    /// let ticks = PassthroughSubject<Int, Never>()
    /// let shared = ticks.multicast(subject: PassthroughSubject()).autoconnect()
    /// let cancellable = shared.sink { print($0) }   // connects
    /// ticks.send(1)                                 // 1
    /// ```
    public func autoconnect() -> Publishers.Autoconnect<Self> {
        Publishers.Autoconnect(upstream: self)
    }
}
