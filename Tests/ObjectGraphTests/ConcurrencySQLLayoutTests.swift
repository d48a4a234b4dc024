import Dispatch
import Foundation
@testable import ObjectGraph
import Streams
import Testing

/// The layout a model keeps for the files it wrote (see `SQLLayoutSharingTests`) is made under
/// our lock: stores opened at once on several threads all end up with the same one.
@Suite("Concurrency: stores opened at once on several threads share one layout per model")
struct ConcurrencySQLLayoutTests {
    @Test("eight containers of a new model opened at once on eight files get one layout")
    func openedAtOnce() throws {
        let model = try ObjectModel(entities: TestModel.classes)
        try SQLiteFixture.withTemporaryDirectory { directory in
            let opened = OpenedContainers()
            DispatchQueue.concurrentPerform(iterations: 8) { index in
                opened.add(Result { try PersistentContainer(model: model, storeURL: directory.appendingPathComponent("\(index).sqlite")) })
            }
            let containers = try opened.all.map { try $0.get() }
            defer { containers.forEach { $0.close() } }
            #expect(containers.count == 8)
            let mappings = try containers.map { try SQLLayoutSharingTests.mapping("Content", of: $0) }
            #expect(mappings.allSatisfy { $0 === mappings[0] })
        }
    }
}

/// Results gathered from several threads.
private final class OpenedContainers: @unchecked Sendable {  // `lock` protects `results`
    private let lock = Lock()
    private var results: [Result<PersistentContainer, any Error>] = []

    func add(_ result: Result<PersistentContainer, any Error>) { lock.withLock { results.append(result) } }
    var all: [Result<PersistentContainer, any Error>] { lock.withLock { results } }
}
