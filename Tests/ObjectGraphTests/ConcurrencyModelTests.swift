import Dispatch
import Foundation
import ObjectGraph
import Testing

@Suite("Concurrency: models made at once")
struct ConcurrencyModelTests {
    @Test("models of the same classes made on several threads at once resolve the same indexes")
    func sameIndexes() {
        let expected = UniquenessModel.model.entities.map { $0.indexes.map(\.description) }
        let results = Shared<[[[String]]?]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<20 {
                let model = try? ObjectModel(entities: [Profile.self, Club.self, Item.self, Gadget.self, Widget.self, Reading.self])
                let described = model?.entities.map { $0.indexes.map(\.description) }
                results.update { $0.append(described) }
            }
        }
        #expect(results.get().count == 160)
        #expect(results.get().allSatisfy { $0 == expected })
    }
}
