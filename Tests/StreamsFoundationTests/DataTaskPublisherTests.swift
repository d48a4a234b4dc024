import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Streams
import StreamsFoundation
import StreamsTesting
import Testing

/// Answers requests from memory, so that the data task publisher is tested without a network.
final class StubProtocol: URLProtocol {
    override class func canInit(with request: URLRequest) -> Bool { request.url?.scheme == "stub" }
    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    override func startLoading() {
        let url = request.url!
        Stub.recordStart()
        if url.host == "fail" {
            client?.urlProtocol(self, didFailWithError: URLError(.cannotConnectToHost))
            return
        }
        let response = HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: nil)!
        client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
        client?.urlProtocol(self, didLoad: Data(url.path.utf8))
        client?.urlProtocolDidFinishLoading(self)
    }

    override func stopLoading() {}
}

enum Stub {
    private static let lock = Lock()
    nonisolated(unsafe) private static var starts = 0

    static func recordStart() { lock.withLock { starts += 1 } }
    static var startCount: Int { lock.withLock { starts } }

    static func session() -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [StubProtocol.self]
        return URLSession(configuration: configuration)
    }
}

@Suite("URLSession.dataTaskPublisher(for:)", .serialized)
struct DataTaskPublisherTests {
    /// Waits (boundedly) until `subscriber` completes.
    private func awaitCompletion<Output, Failure>(_ subscriber: TestSubscriber<Output, Failure>) {
        let bound = Date().addingTimeInterval(10)
        while subscriber.completion == nil, Date() < bound { usleep(1_000) }
    }

    @Test("publishes the data and the response once, then finishes")
    func loads() {
        let subscriber = TestSubscriber<URLSession.DataTaskPublisher.Output, URLError>()
        Stub.session().dataTaskPublisher(for: URL(string: "stub://host/hello")!).subscribe(subscriber)
        subscriber.request(.max(1))
        awaitCompletion(subscriber)
        #expect(subscriber.values.map { String(decoding: $0.data, as: UTF8.self) } == ["/hello"])
        #expect((subscriber.values.first?.response as? HTTPURLResponse)?.statusCode == 200)
        #expect(subscriber.completion == .finished)
        #expect(subscriber.violations.isEmpty)
    }

    @Test("a transport error fails the stream with the URLError")
    func fails() {
        let subscriber = TestSubscriber<URLSession.DataTaskPublisher.Output, URLError>()
        Stub.session().dataTaskPublisher(for: URLRequest(url: URL(string: "stub://fail/")!)).subscribe(subscriber)
        subscriber.request(.unlimited)
        awaitCompletion(subscriber)
        #expect(subscriber.values.isEmpty)
        #expect(subscriber.completion == .failure(URLError(.cannotConnectToHost)))
    }

    @Test("the task starts only when the subscriber asks, and not at all if it cancels first")
    func startsOnDemand() {
        let before = Stub.startCount
        let subscriber = TestSubscriber<URLSession.DataTaskPublisher.Output, URLError>()
        let publisher = Stub.session().dataTaskPublisher(for: URL(string: "stub://host/lazy")!)
        publisher.subscribe(subscriber)
        usleep(20_000)
        #expect(Stub.startCount == before)
        subscriber.cancel()
        subscriber.request(.max(1))
        usleep(20_000)
        #expect(Stub.startCount == before)
        #expect(subscriber.completion == nil)
        #expect(publisher.request.url?.path == "/lazy")
    }
}
