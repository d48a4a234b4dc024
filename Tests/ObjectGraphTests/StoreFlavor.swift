import Dispatch
import Foundation
import ObjectGraph

/// The two stores every behaviour is checked on.
enum StoreFlavor: String, CaseIterable {
    case inMemory
    case sqlite

    /// A new, empty container of this flavour; SQLite files go to a fresh temporary folder.
    func makeContainer(model: ObjectModel = TestModel.model) throws -> PersistentContainer {
        try PersistentContainer(model: model, store: makeStoreKind(), viewContextQueue: DispatchQueue(label: "test.view"))
    }

    func makeStoreKind() -> StoreKind {
        switch self {
        case .inMemory: .inMemory
        case .sqlite: .sqlite(TemporaryFolder.make().appendingPathComponent("store.sqlite"))
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
