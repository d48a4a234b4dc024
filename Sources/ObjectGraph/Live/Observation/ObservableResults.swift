import Observation
import Streams

/// The live results of a fetch request as an `Observable` object, for view models written with
/// the Observation framework (`@Observable`, SwiftUI's `@State`, `withObservationTracking`).
///
/// ```swift
/// @Observable final class BoardViewModel {
///     let rows: ObservableResults<Content, RowViewModel>
///
///     init(view: ManagedObjectContext) {
///         rows = view.observableResults(for: FetchRequest(sortBy: [SortDescriptor(\.name)])) { RowViewModel($0) }
///     }
/// }
/// // In a SwiftUI view: ForEach(model.rows.elements) { row in … } and Text("\(model.rows.count)")
/// ```
///
/// It is kept current by a ``ChangesPublisher`` subscription of its own, so it follows the
/// same rules: a controller made for it alone, one coalesced difference per batch of changes
/// (a save, a merged sibling save), work in proportion to the change. Each difference is
/// applied in one step on the context's queue: an observer sees one change per difference and
/// never a half-applied state. `elements` keeps in step with `objects` as Streams'
/// `applyingChanges` keeps a view-model array: the transform
/// runs only for inserted, updated and moved objects.
///
/// Read it on the context's queue (the view context's is the main queue on Apple platforms,
/// where SwiftUI reads it). Made on the queue, it holds the fetched results at once; made
/// elsewhere, from the first turn of the queue. A failing fetch leaves the results empty and
/// sets ``failure``; a predicate that fails later keeps the last results and sets it.
/// Releasing the object stops its controller.
public final class ObservableResults<Object: ManagedObject, Element>: Observable {
    /// A section of the results: its name and where its objects are in ``objects`` and
    /// ``elements``.
    public struct Section: Hashable, Identifiable, Sendable {
        /// The section's name: the objects' value at the section key path.
        public let name: String
        /// The offsets of the section's objects.
        public let offsets: Range<Int>
        /// The name, which is unique among the sections.
        public var id: String { name }
    }

    /// The context followed.
    public let context: ManagedObjectContext
    /// The request whose results are shown.
    public let fetchRequest: FetchRequest<Object>
    /// The key path whose value names an object's section, if sectioned.
    public let sectionNameKeyPath: KeyPath<Object, String>?

    private let registrar = ObservationRegistrar()
    /// The key paths announced to the registrar, made once: a key path literal of a generic
    /// class is instantiated at run time each time it is evaluated.
    private let keys = Keys()
    private let transform: ((Object) -> Element)?
    private var storedObjects: [Object] = []
    /// `nil` without a transform: `elements` are the objects then.
    private var storedElements: [Element]?
    private var sectionTable = SectionTable()
    private var storedFailure: ObjectGraphError?
    private var subscription: AnyCancellable?

    /// The matching objects, in the request's order.
    public var objects: [Object] {
        registrar.access(self, keyPath: keys.objects)
        return storedObjects
    }

    /// The objects mapped by the transform (the objects themselves without one), row for row.
    public var elements: [Element] {
        registrar.access(self, keyPath: keys.elements)
        return storedElements ?? (storedObjects as! [Element])  // Element is Object without a transform
    }

    /// How many objects match; observing it alone is not disturbed by updates that keep it.
    public var count: Int {
        registrar.access(self, keyPath: keys.count)
        return storedObjects.count
    }

    /// The sections in order, when made with a section key path; otherwise empty.
    public var sections: [Section] {
        registrar.access(self, keyPath: keys.sections)
        var start = 0
        return zip(sectionTable.names, sectionTable.counts).map { name, count in
            defer { start += count }
            return Section(name: name, offsets: start..<(start + count))
        }
    }

    /// Why the results stopped following the context, if they did.
    public var failure: ObjectGraphError? {
        registrar.access(self, keyPath: keys.failure)
        return storedFailure
    }

    init(context: ManagedObjectContext, fetchRequest: FetchRequest<Object>, sectionNameKeyPath: KeyPath<Object, String>?, transform: ((Object) -> Element)?) {
        self.context = context
        self.fetchRequest = fetchRequest
        self.sectionNameKeyPath = sectionNameKeyPath
        self.transform = transform
        if transform != nil { storedElements = [] }
        subscription = ChangesPublisher(context: context, fetchRequest: fetchRequest, sectionNameKeyPath: sectionNameKeyPath)
            .sink(receiveCompletion: { [weak self] completion in
                if case .failure(let error) = completion { self?.fail(error) }
            }, receiveValue: { [weak self] difference in
                self?.apply(difference)
            })
    }

    /// Applies one delivered difference in one step, announcing each property it changes
    /// before the first change and after the last.
    private func apply(_ difference: CollectionDifference<Object>) {
        let changesCount = difference.insertions.count != difference.removals.count
        let sectioned = sectionNameKeyPath != nil
        registrar.willSet(self, keyPath: keys.objects)
        registrar.willSet(self, keyPath: keys.elements)
        if changesCount { registrar.willSet(self, keyPath: keys.count) }
        if sectioned { registrar.willSet(self, keyPath: keys.sections) }
        do {
            if !Self.replaceInPlace(difference, in: &storedObjects) { try storedObjects.apply(difference) { $0 } }
            if let transform { try storedElements?.apply(difference, transform: transform) }
        } catch {
            // Differences come from this object's own controller and always fit.
            assertionFailure("a difference did not fit the results: \(error)")
        }
        if let keyPath = sectionNameKeyPath {
            let objects = storedObjects
            sectionTable.apply(difference, finalCount: objects.count) { objects[$0][keyPath: keyPath] }
        }
        if sectioned { registrar.didSet(self, keyPath: keys.sections) }
        if changesCount { registrar.didSet(self, keyPath: keys.count) }
        registrar.didSet(self, keyPath: keys.elements)
        registrar.didSet(self, keyPath: keys.objects)
    }

    /// The most common live change, objects updated where they stand (each removal and
    /// insertion at the same offset), made by assignment; returns false for any other
    /// difference. (The general `apply` finds its way to the same assignments at a cost that
    /// doubled the time a one-row update takes to reach an observer.)
    private static func replaceInPlace(_ difference: CollectionDifference<Object>, in objects: inout [Object]) -> Bool {
        let (removals, insertions) = (difference.removals, difference.insertions)
        guard removals.count == insertions.count else { return false }
        for (removal, insertion) in zip(removals, insertions) {
            guard case .remove(let old, _, _) = removal, case .insert(let new, _, _) = insertion, old == new, new < objects.count else { return false }
        }
        for insertion in insertions {
            if case .insert(let offset, let object, _) = insertion { objects[offset] = object }
        }
        return true
    }

    private struct Keys {
        let objects = \ObservableResults.objects
        let elements = \ObservableResults.elements
        let count = \ObservableResults.count
        let sections = \ObservableResults.sections
        let failure = \ObservableResults.failure
    }

    private func fail(_ error: ObjectGraphError) {
        registrar.withMutation(of: self, keyPath: keys.failure) { storedFailure = error }
    }
}

extension ManagedObjectContext {
    /// The live results of `fetchRequest` in this context, as an `Observable` object.
    ///
    /// ```swift
    /// let inbox = view.observableResults(for: FetchRequest<Content>(sortBy: [SortDescriptor(\.name)]))
    /// withObservationTracking { print(inbox.count) } onChange: { print("changed") }
    /// ```
    ///
    /// With `sectionNameKeyPath` (which must be the first sort descriptor's key path) the results
    /// also have ``ObservableResults/sections``. See ``ObservableResults`` for the rules.
    public func observableResults<Object: ManagedObject>(
        for fetchRequest: FetchRequest<Object>, sectionNameKeyPath: KeyPath<Object, String>? = nil
    ) -> ObservableResults<Object, Object> {
        ObservableResults(context: self, fetchRequest: fetchRequest, sectionNameKeyPath: sectionNameKeyPath, transform: nil)
    }

    /// The live results of `fetchRequest` in this context, each object mapped by `transform` to
    /// an element (a row's view model) kept in step with the objects: `transform` runs for
    /// inserted, updated and moved objects only.
    ///
    /// ```swift
    /// let rows = view.observableResults(for: FetchRequest<Content>(sortBy: [SortDescriptor(\.name)])) { $0.name.uppercased() }
    /// print(rows.elements)
    /// ```
    public func observableResults<Object: ManagedObject, Element>(
        for fetchRequest: FetchRequest<Object>, sectionNameKeyPath: KeyPath<Object, String>? = nil,
        transform: @escaping (Object) -> Element
    ) -> ObservableResults<Object, Element> {
        ObservableResults(context: self, fetchRequest: fetchRequest, sectionNameKeyPath: sectionNameKeyPath, transform: transform)
    }
}
