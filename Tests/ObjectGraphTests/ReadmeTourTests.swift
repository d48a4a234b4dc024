import Dispatch
import Foundation
import ObjectGraph
import Streams
import StreamsTesting
import Testing

// The README's test example, run as written there (`.ci/check-readme` builds the README's code;
// this runs its test). Only the model class is renamed.

final class TourItem: ManagedObject {
    @Attribute var title: String = ""
    @Attribute var rank: Int = 0
}

@Suite("The README's tour")
struct ReadmeTourTests {
    @Test("many saves arrive as one difference when the subscriber asks once")
    func manySavesArriveAsOneDifference() throws {
        let model = try ObjectModel(entities: [TourItem.self])
        let container = try PersistentContainer(model: model, store: .inMemory,
                                                viewContextQueue: DispatchQueue(label: "test.view"))
        let view = container.viewContext
        let subscriber = TestSubscriber<CollectionDifference<TourItem>, ObjectGraphError>()
        view.changesPublisher(for: FetchRequest<TourItem>(sortBy: [SortDescriptor(\.rank)])).subscribe(subscriber)
        let background = container.newBackgroundContext()
        try background.performAndWait {
            for rank in 0..<1_000 {
                TourItem(context: background).rank = rank
                try background.save()
            }
        }
        view.performAndWait { subscriber.request(.max(1)) }
        #expect(subscriber.values.count == 1)
        #expect(subscriber.values.first?.insertions.count == 1_000)
    }
}
