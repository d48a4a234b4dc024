import Dispatch
import Foundation
@testable import ObjectGraph
import Testing

/// The stores every behaviour is checked on: the one conformance suite. Every test that takes
/// `arguments: StoreFlavor.allCases` runs on memory, SQLite and — when a server runs (see
/// ``PostgreSQLTestServer``) — PostgreSQL, so that the three stay equal.
enum StoreFlavor: String, CaseIterable, CustomTestStringConvertible {
    case inMemory
    case sqlite
    case postgreSQL

    /// Every store, PostgreSQL only when its tests run.
    static var allCases: [StoreFlavor] {
        PostgreSQLTestServer.isEnabled ? [.inMemory, .sqlite, .postgreSQL] : [.inMemory, .sqlite]
    }

    /// The stores kept in a database (every one but memory).
    static var persistent: [StoreFlavor] { allCases.filter { $0 != .inMemory } }

    var testDescription: String { rawValue }

    /// A new, empty container of this flavour; SQLite files go to a fresh temporary folder.
    func makeContainer(model: ObjectModel = TestModel.model) throws -> PersistentContainer {
        try PersistentContainer(model: model, store: makeStoreKind(), viewContextQueue: DispatchQueue(label: "test.view"))
    }

    func makeStoreKind() -> StoreKind {
        switch self {
        case .inMemory: .inMemory
        case .sqlite: .sqlite(TemporaryFolder.make().appendingPathComponent("store.sqlite"))
        // A new schema in the test process's database: creating one costs far less than a database.
        case .postgreSQL: .postgreSQL((try? PostgreSQLTestServer.newStoreConnectionString()) ?? "dbname=no-test-server")
        }
    }
}


enum TemporaryFolder {
    /// A new folder under the system's temporary directory.
    static func make() -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("objectgraph-tests-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
