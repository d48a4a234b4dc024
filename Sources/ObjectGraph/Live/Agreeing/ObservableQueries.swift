import Observation
import Streams

/// Several live queries of one context as one `Observable` object whose ``values`` always show
/// all of them at the same state of the store: the Observation form of
/// ``AgreeingChangesPublisher``.
///
/// ```swift
/// @Observable final class InboxViewModel {
///     let inbox: ObservableQueries<([MessageRow], Int)>
///
///     init(view: ManagedObjectContext) {
///         inbox = view.observableResults(for: .results(allMessages) { MessageRow($0) }, .count(unreadMessages))
///     }
///     var rows: [MessageRow] { inbox.values.0 }
///     var badge: Int { inbox.values.1 }
/// }
/// ```
///
/// Each delivered value updates every part in one step, on the context's queue, where it must
/// be read: an observer sees one change per value and never a list from one save beside a
/// count from another. A results part's elements follow its objects as
/// ``ObservableResults/elements`` do (the transform runs for inserted, updated and moved
/// objects only). A failing part sets ``failure`` and stops every part; releasing the object
/// stops them too.
public final class ObservableQueries<Values>: Observable {
    /// The context followed.
    public let context: ManagedObjectContext

    private let registrar = ObservationRegistrar()
    /// Made once (see ``ObservableResults``).
    private let keys = Keys()
    private var storedValues: Values
    private var storedFailure: ObjectGraphError?
    private var subscription: AnyCancellable?

    /// Every part's current value, in the order of the queries: a results part's elements, a
    /// count part's count.
    public var values: Values {
        registrar.access(self, keyPath: keys.values)
        return storedValues
    }

    /// Why the parts stopped following the context, if they did.
    public var failure: ObjectGraphError? {
        registrar.access(self, keyPath: keys.failure)
        return storedFailure
    }

    init<Changes>(context: ManagedObjectContext, parts: AgreeingParts<Changes, Values>) {
        self.context = context
        storedValues = parts.initial
        let update = parts.update
        subscription = AgreeingChangesPublisher(context: context, starts: parts.starts) { $0 }
            .sink(receiveCompletion: { [weak self] completion in
                if case .failure(let error) = completion { self?.fail(error) }
            }, receiveValue: { [weak self] changes in
                guard let self else { return }
                registrar.withMutation(of: self, keyPath: keys.values) { update(&storedValues, changes) }
            })
    }

    private struct Keys {
        let values = \ObservableQueries.values
        let failure = \ObservableQueries.failure
    }

    private func fail(_ error: ObjectGraphError) {
        registrar.withMutation(of: self, keyPath: keys.failure) { storedFailure = error }
    }
}

extension ManagedObjectContext {
    /// Two live queries of this context as one `Observable` object whose values always show
    /// both at the same state of the store.
    ///
    /// ```swift
    /// let inbox = view.observableResults(for: .results(allMessages), .count(unreadMessages))
    /// withObservationTracking { print(inbox.values.0.count, inbox.values.1) } onChange: { print("changed") }
    /// ```
    ///
    /// See ``ObservableQueries`` for the rules.
    public func observableResults<A: AgreeingQuery, B: AgreeingQuery>(for a: A, _ b: B) -> ObservableQueries<(A.Current, B.Current)> {
        ObservableQueries(context: self, parts: .of(a, b))
    }

    /// Three live queries of this context as one `Observable` object whose values agree.
    public func observableResults<A: AgreeingQuery, B: AgreeingQuery, C: AgreeingQuery>(
        for a: A, _ b: B, _ c: C
    ) -> ObservableQueries<(A.Current, B.Current, C.Current)> {
        ObservableQueries(context: self, parts: .of(a, b, c))
    }

    /// Four live queries of this context as one `Observable` object whose values agree.
    public func observableResults<A: AgreeingQuery, B: AgreeingQuery, C: AgreeingQuery, D: AgreeingQuery>(
        for a: A, _ b: B, _ c: C, _ d: D
    ) -> ObservableQueries<(A.Current, B.Current, C.Current, D.Current)> {
        ObservableQueries(context: self, parts: .of(a, b, c, d))
    }
}
