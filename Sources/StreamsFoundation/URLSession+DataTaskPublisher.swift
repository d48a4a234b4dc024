#if !canImport(Combine)
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Streams

extension URLSession {
    /// A publisher that loads `url` and publishes the data and response once, as Combine's.
    ///
    /// ```swift
    /// let cancellable = URLSession.shared.dataTaskPublisher(for: url)
    ///     .map(\.data)
    ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0.count) })
    /// ```
    public func dataTaskPublisher(for url: URL) -> URLSession.DataTaskPublisher {
        DataTaskPublisher(request: URLRequest(url: url), session: self)
    }

    /// A publisher that performs `request` and publishes the data and response once.
    public func dataTaskPublisher(for request: URLRequest) -> URLSession.DataTaskPublisher {
        DataTaskPublisher(request: request, session: self)
    }

    /// The publisher ``URLSession/dataTaskPublisher(for:)-(URL)`` makes.
    ///
    /// The task starts when the subscriber first asks for a value, and is cancelled if the
    /// subscriber cancels first. A transport error fails the stream with the `URLError`.
    public struct DataTaskPublisher: Publisher, @unchecked Sendable {  // immutable
        /// The body and the response.
        public typealias Output = (data: Data, response: URLResponse)
        /// The transport error.
        public typealias Failure = URLError

        /// The request performed.
        public let request: URLRequest
        /// The session that performs it.
        public let session: URLSession

        /// Creates a publisher that performs `request` with `session`.
        public init(request: URLRequest, session: URLSession) {
            self.request = request
            self.session = session
        }

        /// Attaches `subscriber`; the task starts on its first demand.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == URLError {
            subscriber.receive(subscription: DataTaskSubscription(request: request, session: session, downstream: subscriber))
        }
    }
}

/// What the task's completion handler calls.
private protocol DataTaskReceiving: Sendable {
    func finish(data: Data?, response: URLResponse?, error: (any Error)?)
}

/// One subscriber's data task: started on the first demand, delivered once, cancelled with the
/// subscription. Its lifecycle is every operator's: it waits for its "upstream" (the task, made
/// on the first demand), holds it while loading, and ends once.
private final class DataTaskSubscription<Downstream: Subscriber>: Subscription, DataTaskReceiving, CustomStringConvertible, CustomReflectable,
    CustomPlaygroundDisplayConvertible, @unchecked Sendable  // `lock` protects every var
where Downstream.Input == URLSession.DataTaskPublisher.Output, Downstream.Failure == URLError {
    private let request: URLRequest
    private let session: URLSession
    private let lock = Lock()
    private var lifecycle: SubscriptionLifecycle<Downstream, URLSessionDataTask, Never>

    init(request: URLRequest, session: URLSession, downstream: Downstream) {
        self.request = request
        self.session = session
        lifecycle = SubscriptionLifecycle(downstream: downstream)
    }

    var description: String { "DataTaskPublisher" }
    var customMirror: Mirror { Mirror(self, children: EmptyCollection()) }
    var playgroundDescription: Any { description }

    func request(_ demand: Subscribers.Demand) {
        guard demand > 0 else { return }
        lock.lock()
        guard case .awaitingSubscription = lifecycle.status else { lock.unlock(); return }
        // Captured as an existential, so that the handler does not capture the subscriber's type.
        let receiver: any DataTaskReceiving = self
        let task = session.dataTask(with: request) { data, response, error in
            receiver.finish(data: data, response: response, error: error)
        }
        let started = lifecycle.attach(task) != nil
        lock.unlock()
        if started { task.resume() }
    }

    func cancel() {
        lock.lock()
        let ending = lifecycle.cancel()
        lock.unlock()
        withExtendedLifetime(ending.released) {}
        ending.upstream?.cancel()
    }

    func finish(data: Data?, response: URLResponse?, error: (any Error)?) {
        lock.lock()
        let ended = lifecycle.complete()
        lock.unlock()
        guard let (downstream, _) = ended else { return }
        if let error {
            downstream.receive(completion: .failure(error as? URLError ?? URLError(.unknown)))
        } else if let response {
            _ = downstream.receive((data: data ?? Data(), response: response))
            downstream.receive(completion: .finished)
        } else {
            downstream.receive(completion: .failure(URLError(.badServerResponse)))
        }
    }
}
#endif
