import Foundation
import ObjectGraph
import Streams

/// One line of the board.
struct Row: Equatable {
    let id: ObjectID?
    let title: String
    let bucket: String
    let rank: Int

    init(_ item: Item) {
        id = item.objectID
        title = item.title
        bucket = item.bucket?.name ?? "—"
        rank = item.rank
    }
}

/// The view model in the Combine form: the board's rows, kept in step with the store by
/// `changesPublisher` and `applyingChanges`. It lives on the view context's queue.
final class BoardViewModel {
    @Published private(set) var rows: [Row] = []
    private(set) var differenceCount = 0
    /// The difference of the latest save, to mark what changed.
    private(set) var lastDifference: CollectionDifference<Item>?
    private var cancellables = Set<AnyCancellable>()

    /// Starts following `context`; `onChange`, when given, runs after each difference is applied.
    init(
        context: ManagedObjectContext,
        onChange: ((BoardViewModel, CollectionDifference<Item>) -> Void)? = nil,
        onFailure: @escaping (ObjectGraphError) -> Void
    ) {
        var request = FetchRequest<Item>(sortBy: [SortDescriptor(\.rank), SortDescriptor(\.title)])
        // A renamed bucket changes the rows of its items without touching the items themselves.
        request.relationshipKeyPathsForRefreshing = ["bucket.name"]
        let changes = context.changesPublisher(for: request)
            .handleEvents(receiveOutput: { [weak self] difference in self?.lastDifference = difference })
        $rows.applyingChanges(changes) { Row($0) }
            .sink(
                receiveCompletion: { completion in
                    if case .failure(let error) = completion { onFailure(error) }
                },
                receiveValue: { [weak self] rows in
                    guard let self else { return }
                    self.rows = rows
                    differenceCount += 1
                    if let onChange, let difference = lastDifference { onChange(self, difference) }
                })
            .store(in: &cancellables)
    }
}
