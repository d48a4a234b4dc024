import Foundation
import Streams
import Testing

/// Combine's scheduler time types, as a Combine user's code and tests see them: distinct types
/// per scheduler, Combine's arithmetic, and Combine's encodings.
@Suite("Combine fidelity: scheduler time types")
struct SchedulerFidelityTests {
    private struct Keyed<Value: Codable & Equatable>: Codable, Equatable {
        let value: Value
    }

    private func json<Value: Encodable>(_ value: Value) throws -> String {
        String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
    }

    @Test("OperationQueue's time and stride are types of their own, as in Combine, not RunLoop's")
    func operationQueueTimeTypeIsItsOwn() throws {
        #expect(OperationQueue.SchedulerTimeType.self != RunLoop.SchedulerTimeType.self)
        #expect(OperationQueue.SchedulerTimeType.Stride.self != RunLoop.SchedulerTimeType.Stride.self)
        // What a ported test module does: extend both with the same protocol.
        #expect(OperationQueue.SchedulerTimeType.Stride.seconds(2).describedKind == "OperationQueue")
        #expect(RunLoop.SchedulerTimeType.Stride.seconds(2).describedKind == "RunLoop")

        typealias Stride = OperationQueue.SchedulerTimeType.Stride
        let start = OperationQueue.SchedulerTimeType(Date(timeIntervalSinceReferenceDate: 10_000))
        #expect(start.advanced(by: .seconds(431)).date == Date(timeIntervalSinceReferenceDate: 10_431))
        #expect(start.distance(to: start.advanced(by: .seconds(-220))).timeInterval == -220)
        #expect((Stride.nanoseconds(18) * .microseconds(1)).magnitude == 1.8E-14)
        #expect((Stride.milliseconds(-12) + .seconds(7)).magnitude == 6.988)
        #expect(Stride(exactly: UInt64.max) == nil)
        #expect(Stride(exactly: 871 as UInt64)?.magnitude == 871)
        #expect(try json(Stride.seconds(1024.5)) == #"{"magnitude":1024.5}"#)
        #expect(try json(OperationQueue.SchedulerTimeType(Date(timeIntervalSinceReferenceDate: 1024.75))) == #"{"date":1024.75}"#)
        #expect(OperationQueue.main.minimumTolerance == .init(0))
    }

    @Test("an OperationQueue runs work scheduled with its own time type")
    func operationQueueSchedulesWithItsTimeType() async {
        let queue = OperationQueue()
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            queue.schedule(after: queue.now.advanced(by: .milliseconds(1))) { done.resume() }
        }
    }

    @Test("DispatchQueue strides multiply as seconds, as in Combine: interval * 2 doubles it")
    func dispatchStrideMultipliesAsSeconds() {
        typealias Stride = DispatchQueue.SchedulerTimeType.Stride
        #expect(Stride.milliseconds(250) * 2 == .milliseconds(500))
        #expect((Stride.seconds(2) * .seconds(3)).magnitude == 6_000_000_000)
        #expect((Stride.nanoseconds(18) * .microseconds(1)).magnitude == 0)
        #expect((Stride.nanoseconds(15) * .nanoseconds(2)).magnitude == 0)
        #expect((Stride.microseconds(-3) * .nanoseconds(10)).magnitude == 0)
        var stride = Stride.seconds(1)
        stride *= 3
        #expect(stride == .seconds(3))
        #expect((Stride.seconds(.max) * 2).magnitude == .max)
    }

    @Test("a DispatchQueue stride encodes its nanoseconds under _nanoseconds, as Combine does")
    func dispatchStrideEncoding() throws {
        typealias Stride = DispatchQueue.SchedulerTimeType.Stride
        let encoded = try json(Keyed(value: Stride.nanoseconds(419_872)))
        #expect(encoded == #"{"value":{"_nanoseconds":419872}}"#)
        let decoded = try JSONDecoder().decode(Keyed<Stride>.self, from: Data(encoded.utf8))
        #expect(decoded.value == .nanoseconds(419_872))
        let time = DispatchQueue.SchedulerTimeType(DispatchTime(uptimeNanoseconds: 42))
        #expect(try json(Keyed(value: time)) == #"{"value":42}"#)
    }

    @Test("an ImmediateScheduler stride made from a time unit is zero, as in Combine")
    func immediateStrideUnitsAreZero() throws {
        typealias Stride = ImmediateScheduler.SchedulerTimeType.Stride
        #expect(Stride.seconds(1.2) == 0)
        #expect(Stride.seconds(1100) == 0)
        #expect(Stride.milliseconds(123) == 0)
        #expect(Stride.microseconds(51) == 0)
        #expect(Stride.nanoseconds(23) == 0)
        #expect(Stride(14) == 14.6)
        #expect(Stride(-4) * Stride(5) == Stride(-20))
        #expect(try json(["value": Stride(-42)]) == #"{"value":{"magnitude":-42}}"#)
        let now = ImmediateScheduler.shared.now
        #expect(now == now.advanced(by: 100))
        #expect(now.distance(to: now.advanced(by: -1)) == 0)
    }
}

// Two extensions that name the same protocol compile only if the types are distinct.
private protocol SchedulerKindDescribing {
    var describedKind: String { get }
}

extension OperationQueue.SchedulerTimeType.Stride: SchedulerKindDescribing {
    fileprivate var describedKind: String { "OperationQueue" }
}

extension RunLoop.SchedulerTimeType.Stride: SchedulerKindDescribing {
    fileprivate var describedKind: String { "RunLoop" }
}
