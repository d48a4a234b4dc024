import Foundation
import Streams
import StreamsTesting
import Testing

/// Combine's declared API: the types operators return on the publishers Combine specialises,
/// the fusions, encoding and decoding, and `Codable` where Combine has it. Code that names these
/// types, as ported code does, compiles only if they match.
@Suite("Combine fidelity: declared API")
struct APIFidelityTests {
    @Test("operators on Just return the simplest publisher of their answer, as in Combine")
    func justSpecialisations() {
        let mapped: Just<Int> = Just(20).map { $0 + 1 }
        #expect(mapped.output == 21)
        let filtered: Optional<Int>.Publisher = Just(1).filter { $0 > 1 }
        #expect(filtered.output == nil)
        let failing: Result<Int, TestError>.Publisher = Just(1).setFailureType(to: TestError.self)
        #expect(failing.result == .success(1))
        let thrown: Result<Int, any Error>.Publisher = Just(1).tryMap { _ in throw TestError.boom }
        if case .failure(let error) = thrown.result { #expect(error as? TestError == .boom) } else { Issue.record("expected the thrown error") }
        let appended: Publishers.Sequence<[Int], Never> = Just(1).append(2, 3)
        #expect(appended.sequence == [1, 2, 3])
        let counted: Just<Int> = Just("a").count()
        #expect(counted.output == 1)
        let _: Empty<Int, Never> = Just(1).ignoreOutput()
        let dropped: Optional<Int>.Publisher = Just(1).dropFirst()
        #expect(dropped.output == nil)
        #expect(Just(1).record(requesting: .unlimited).values == [1])
    }

    @Test("operators on Optional.Publisher and Result.Publisher keep their type, as in Combine")
    func optionalAndResultSpecialisations() {
        let doubled: Optional<Int>.Publisher = Optional(4).publisher.map { $0 * 2 }
        #expect(doubled.output == 8)
        let empty: Optional<Int>.Publisher = Optional<Int>.none.publisher.map { $0 * 2 }
        #expect(empty.output == nil)
        let replaced: Just<Int> = Optional<Int>.none.publisher.replaceEmpty(with: 5)
        #expect(replaced.output == 5)
        let result: Result<String, TestError>.Publisher = Result<Int, TestError>.success(3).publisher.map(String.init)
        #expect(result.result == .success("3"))
        let recovered: Result<Int, Never>.Publisher = Result<Int, TestError>.failure(.boom).publisher.replaceError(with: 0)
        #expect(recovered.result == .success(0))
        let renamed: Result<Int, TestError>.Publisher = Result<Int, Never>.success(1).publisher.setFailureType(to: TestError.self)
        #expect(renamed.result == .success(1))
    }

    @Test("operators on Publishers.Sequence return sequence publishers, as in Combine")
    func sequenceSpecialisations() {
        let mapped: Publishers.Sequence<[Int], Never> = [1, 2, 3].publisher.map { $0 * 10 }
        #expect(mapped.sequence == [10, 20, 30])
        let filtered: Publishers.Sequence<[Int], Never> = (1...6).publisher.filter { $0.isMultiple(of: 2) }
        #expect(filtered.sequence == [2, 4, 6])
        let dropped: Publishers.Sequence<DropFirstSequence<[Int]>, Never> = [1, 2, 3].publisher.dropFirst()
        #expect(Array(dropped.sequence) == [2, 3])
        let scanned: Publishers.Sequence<[Int], Never> = [1, 2, 3].publisher.scan(0, +)
        #expect(scanned.sequence == [1, 3, 6])
        let deduplicated: Publishers.Sequence<[Int], Never> = [1, 1, 2, 2, 1].publisher.removeDuplicates()
        #expect(deduplicated.sequence == [1, 2, 1])
        let count: Just<Int> = [1, 2, 3].publisher.count()
        #expect(count.output == 3)
        let first: Optional<Int>.Publisher = [4, 5].publisher.first()
        #expect(first.output == 4)
        let contains: Result<Bool, Never>.Publisher = [1, 2].publisher.contains(2)
        #expect(contains.result == .success(true))
        let appended: Publishers.Sequence<[Int], Never> = [1].publisher.append(2).prepend(0)
        #expect(appended.sequence == [0, 1, 2])
        let failing: Publishers.Sequence<[Int], TestError> = [1].publisher.setFailureType(to: TestError.self)
        #expect(failing.sequence == [1])
    }

    @Test("map after map is one Publishers.Map, filter after filter one Publishers.Filter, as Combine fuses them")
    func fusions() {
        let subject = PassthroughSubject<Int, Never>()
        let mapped: Publishers.Map<PassthroughSubject<Int, Never>, String> = subject.map { $0 * 2 }.map { "\($0)" }
        let filtered: Publishers.Filter<PassthroughSubject<Int, Never>> = subject.filter { $0 > 0 }.filter { $0 < 10 }
        let tried: Publishers.TryMap<PassthroughSubject<Int, Never>, Int> = subject.map { $0 }.tryMap { $0 }
        let compact: Publishers.CompactMap<PassthroughSubject<Int, Never>, Int> = subject.compactMap { $0 }.map { $0 + 1 }
        let tryFiltered: Publishers.TryFilter<PassthroughSubject<Int, Never>> = subject.filter { $0 > 0 }.tryFilter { $0 < 10 }
        var strings: [String] = []
        var numbers: [Int] = []
        var cancellables = Set<AnyCancellable>()
        mapped.sink { strings.append($0) }.store(in: &cancellables)
        filtered.sink { numbers.append($0) }.store(in: &cancellables)
        [-1, 3, 12].forEach(subject.send)
        #expect(strings == ["-2", "6", "24"])
        #expect(numbers == [3])
        withExtendedLifetime((tried, compact, tryFiltered)) {}
    }

    @Test("encode(encoder:) and decode(type:decoder:) round-trip through JSON; a bad input fails the stream")
    func encodeDecode() throws {
        struct Point: Codable, Equatable {
            var x, y: Int
        }
        let subscriber = Just(Point(x: 1, y: 2))
            .encode(encoder: JSONEncoder())
            .decode(type: Point.self, decoder: JSONDecoder())
            .record(requesting: .unlimited)
        #expect(subscriber.values == [Point(x: 1, y: 2)])
        #expect(subscriber.completion?.isFinished == true)
        let broken = Just(Data("not json".utf8)).decode(type: Point.self, decoder: JSONDecoder()).record(requesting: .unlimited)
        #expect(broken.values.isEmpty)
        if case .failure(let error) = broken.completion { #expect(error is DecodingError) } else { Issue.record("expected a failure") }
    }

    @Test("Record, Record.Recording and Subscribers.Completion are Codable, as in Combine")
    func codable() throws {
        let record = Record<Int, TestCodableError>(output: [1, 2], completion: .failure(.init(code: 7)))
        let data = try JSONEncoder().encode(record)
        let decoded = try JSONDecoder().decode(Record<Int, TestCodableError>.self, from: data)
        #expect(decoded.recording.output == [1, 2])
        #expect(decoded.recording.completion == .failure(.init(code: 7)))
        let finished = try JSONEncoder().encode(Subscribers.Completion<TestCodableError>.finished)
        #expect(String(decoding: finished, as: UTF8.self) == #"{"success":true}"#)
        let replayed = decoded.record(requesting: .unlimited)
        #expect(replayed.values == [1, 2])
        #expect(replayed.completion == .failure(.init(code: 7)))
    }

    @Test("publisher types have Combine's public memberwise initializers and stored properties")
    func memberwise() {
        let subject = PassthroughSubject<Int, Never>()
        let map = Publishers.Map(upstream: subject) { $0 + 1 }
        #expect(map.upstream === subject)
        let output = Publishers.Output(upstream: subject, range: 1..<3)
        #expect(output.range == 1..<3)
        #expect(Publishers.Sequence<[Int], Never>(sequence: [1]).sequence == [1])
        let keyPath = Publishers.MapKeyPath(upstream: subject, keyPath: \.bitWidth)
        #expect(keyPath.keyPath == \Int.bitWidth)
        #expect(Publishers.Drop(upstream: subject, count: 2).count == 2)
        #expect(Empty<Int, Never>(completeImmediately: false) == Empty(completeImmediately: false))
        #expect(Fail<Int, TestError>(error: .boom) == Fail(outputType: Int.self, failure: .boom))
    }
}

/// A failure that is Codable, for the Record round trip.
struct TestCodableError: Error, Codable, Equatable {
    let code: Int
}
