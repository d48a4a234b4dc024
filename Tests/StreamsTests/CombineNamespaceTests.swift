import Streams
import Testing

// Libraries written for Combine declare types and methods of their own inside Combine's
// namespaces: the scheduler library that many test suites use declares `Publishers.Timer`.
// Ported by changing the import, such a library must still compile, so Streams declares no
// name in `Publishers`, `Subscribers` or their members that Combine does not have. This file
// declares names of that kind, as such libraries do; if Streams declared one of them too, the
// uses below would be ambiguous and this test target would not compile.

extension Publishers {
    /// A library's own timer, as the scheduler library declares it.
    final class Timer<Context: Scheduler>: Publisher {
        typealias Output = Context.SchedulerTimeType
        typealias Failure = Never
        let scheduler: Context
        init(scheduler: Context) { self.scheduler = scheduler }
        func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
            Empty().receive(subscriber: subscriber)
        }
    }

    /// A library's own bridge from `AsyncSequence`.
    struct AsyncSequencePublisher<Base: AsyncSequence> {
        let base: Base
    }

    /// A library's own operator type.
    struct ApplyingChanges<Upstream> {
        let upstream: Upstream
    }
}

extension Subscribers.Completion {
    /// A library's own helper on Combine's completion.
    func mapError<E: Error>(_ transform: (Failure) -> E) -> Subscribers.Completion<E> {
        switch self {
        case .finished: .finished
        case .failure(let error): .failure(transform(error))
        }
    }

    /// A library's own helper on Combine's completion.
    var eraseError: Subscribers.Completion<any Error> { mapError { $0 } }
}

@Suite("Combine's namespaces")
struct CombineNamespaceTests {
    @Test("a library's own Publishers.Timer, AsyncSequencePublisher and ApplyingChanges are not ambiguous")
    func publishersNamesAreFree() {
        let timer: Publishers.Timer<ImmediateScheduler> = Publishers.Timer(scheduler: ImmediateScheduler.shared)
        #expect(timer.scheduler.now == ImmediateScheduler.shared.now)
        let bridge: Publishers.AsyncSequencePublisher<AsyncStream<Int>> = .init(base: AsyncStream { $0.finish() })
        #expect(type(of: bridge.base) == AsyncStream<Int>.self)
        let applying: Publishers.ApplyingChanges<Int> = .init(upstream: 2)
        #expect(applying.upstream == 2)
    }

    @Test("a library's own helpers on Subscribers.Completion are not ambiguous")
    func completionNamesAreFree() {
        let completion = Subscribers.Completion<TestError>.failure(.boom)
        #expect(completion.mapError { _ in TestError.other } == .failure(.other))
        if case .failure(let error) = completion.eraseError {
            #expect(error as? TestError == .boom)
        } else {
            Issue.record("the failure was lost")
        }
    }
}
