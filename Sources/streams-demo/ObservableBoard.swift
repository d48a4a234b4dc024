import Dispatch
import Foundation
import ObjectGraph
import Observation

/// The same board written with the Observation framework, as a SwiftUI view model would be
/// (`@State var board = ObservableBoard(context: container.viewContext)`): the rows and a badge
/// (how many items rank under 50) from two queries that agree, kept current by
/// ObjectGraph on the view context's queue, the main one.
@MainActor
@Observable
final class ObservableBoard {
    @ObservationIgnored private let live: ObservableQueries<([Row], Int)>
    /// How many changes an observer of the board has seen.
    private(set) var changesSeen = 0
    /// Runs on the main queue after each change an observer sees, once it is applied.
    @ObservationIgnored var onChange: () -> Void = {}

    /// Follows `context`, whose queue must be the main one.
    init(context: ManagedObjectContext) {
        var request = FetchRequest<Item>(sortBy: [SortDescriptor(\.rank), SortDescriptor(\.title)])
        request.relationshipKeyPathsForRefreshing = ["bucket.name"]
        live = context.observableResults(for: .results(request) { Row($0) }, .count(FetchRequest<Item>(predicate: #Predicate { $0.rank < 50 })))
        observe()
    }

    /// The rows, as the Combine form shows them.
    var rows: [Row] { live.values.0 }
    /// The badge: items with a rank under 50, always from the same save as `rows`.
    var rankedUnder50: Int { live.values.1 }
    /// Why the board stopped following the store, if it did.
    var failure: ObjectGraphError? { live.failure }

    /// What SwiftUI does for a view that reads the board: track what it reads, and read again
    /// after each change.
    private func observe() {
        withObservationTracking {
            _ = live.values
            _ = live.failure
        } onChange: { [weak self] in
            // Called as the change begins; read once it is applied, on the next turn.
            DispatchQueue.main.async {
                MainActor.assumeIsolated {
                    guard let board = self else { return }
                    board.changesSeen += 1
                    board.observe()
                    board.onChange()
                }
            }
        }
    }
}
