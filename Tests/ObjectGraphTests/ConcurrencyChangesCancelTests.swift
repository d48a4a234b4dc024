import Foundation
import ObjectGraph
import Streams
import StreamsTesting
import Testing

/// Rule 5 as a user's test meets it: a sibling context's saves are merged into the view context
/// (and delivered on its queue) while the test's thread cancels a `changesPublisher`
/// subscription. The difference already under way when `cancel()` returns may still arrive;
/// `TestSubscriber` must not call that a violation, or every test built on it would flake.
@Suite("Concurrency: cancelling a changesPublisher while sibling saves merge")
struct ConcurrencyChangesCancelTests {
    static let byName = FetchRequest<Content>(sortBy: [SortDescriptor(\.name)])

    @Test("200 rounds of cancel racing with a merged sibling save: the delivery under way is never flagged, nothing follows it")
    func cancelWhileSiblingSavesMerge() throws {
        let container = try TestModel.container()
        let view = container.viewContext
        let background = container.newBackgroundContext()
        for round in 0..<200 {
            let subscriber = TestSubscriber<CollectionDifference<Content>, ObjectGraphError>()
            view.changesPublisher(for: Self.byName).subscribe(subscriber)
            view.performAndWait { subscriber.request(.unlimited) }
            let saved = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                try? background.performAndWait {
                    Content(context: background).name = "round \(round)"
                    try background.save()
                }
                saved.signal()
            }
            subscriber.cancel()
            let receivedWhenCancelReturned = subscriber.values.count
            saved.wait()
            view.flush()
            #expect(subscriber.violations.isEmpty, "round \(round): \(subscriber.violations)")
            #expect(subscriber.values.count <= receivedWhenCancelReturned + 1, "round \(round)")
            #expect(subscriber.completion == nil, "round \(round)")
        }
    }
}
