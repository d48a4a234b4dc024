import Foundation
import Streams
import StreamsFoundation
import Testing

@Suite("Timer.publish(every:tolerance:on:in:options:)")
struct FoundationTimerPublisherTests {
    /// Runs the current run loop in short slices until `done()` or a generous bound; the bound
    /// only stops a broken test from hanging, nothing is timed.
    private func runLoop(until done: () -> Bool) {
        let bound = Date().addingTimeInterval(10)
        while !done(), Date() < bound {
            _ = RunLoop.current.run(mode: .default, before: Date().addingTimeInterval(0.01))
        }
    }

    @Test("nothing fires until connect, as with Combine's connectable timer")
    func connectable() {
        let timer = Timer.publish(every: 0.01, on: .current, in: .default)
        var dates: [Date] = []
        let cancellable = timer.sink { dates.append($0) }
        _ = RunLoop.current.run(mode: .default, before: Date().addingTimeInterval(0.05))
        #expect(dates.isEmpty)
        let connection = timer.connect()
        runLoop { dates.count >= 3 }
        #expect(dates.count >= 3)
        #expect(dates == dates.sorted())
        connection.cancel()
        let count = dates.count
        _ = RunLoop.current.run(mode: .default, before: Date().addingTimeInterval(0.05))
        #expect(dates.count == count)
        withExtendedLifetime(cancellable) {}
    }

    @Test("autoconnect starts the timer on the first subscription and stops it when the last one cancels")
    func autoconnect() {
        var dates: [Date] = []
        let cancellable = Timer.publish(every: 0.01, on: .current, in: .default).autoconnect().sink { dates.append($0) }
        runLoop { dates.count >= 2 }
        #expect(dates.count >= 2)
        cancellable.cancel()
        let count = dates.count
        _ = RunLoop.current.run(mode: .default, before: Date().addingTimeInterval(0.05))
        #expect(dates.count == count)
    }

    @Test("the publisher keeps Combine's shape")
    func shape() {
        let timer = Timer.publish(every: 2, tolerance: 0.5, on: .main, in: .common)
        #expect(timer.interval == 2)
        #expect(timer.tolerance == 0.5)
        #expect(timer.runLoop === RunLoop.main)
        #expect(timer.mode == .common)
    }
}
