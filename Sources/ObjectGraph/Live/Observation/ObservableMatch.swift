import Foundation
import Observation
import Streams

/// The one object that matches a predicate, kept current as an `Observable` object: the
/// Observation form of ``ObjectPublisher``.
///
/// ```swift
/// @Observable final class ProfileViewModel {
///     let profile: ObservableMatch<Profile, ProfileCard>
///
///     init(view: ManagedObjectContext, username: String) {
///         profile = view.observableObject(matching: #Predicate { $0.username == username }) { ProfileCard($0) }
///     }
/// }
/// ```
///
/// It is kept current by an ``ObjectPublisher`` subscription of its own: the object (or `nil`)
/// from a fetch first, then every insert, update and delete matched by the predicate. Each
/// change is applied in one step on the context's queue, where it must be read. An update of
/// the object announces a change of ``object`` even though it is the same instance, and makes
/// ``value`` anew. More than one match, or a predicate that fails, sets ``failure`` and stops
/// following; releasing the object stops its controller.
public final class ObservableMatch<Object: ManagedObject, Value>: Observable {
    /// The context followed.
    public let context: ManagedObjectContext
    /// Which object to follow.
    public let predicate: Predicate<Object>

    private let registrar = ObservationRegistrar()
    /// Made once (see ``ObservableResults``).
    private let keys = Keys()
    private let transform: ((Object) -> Value)?
    private var storedObject: Object?
    /// `nil` without a transform: `value` is the object then.
    private var storedValue: Value?
    private var storedFailure: ObjectGraphError?
    private var subscription: AnyCancellable?

    /// The matching object, or `nil` when none matches.
    public var object: Object? {
        registrar.access(self, keyPath: keys.object)
        return storedObject
    }

    /// The matching object mapped by the transform (the object itself without one), or `nil`.
    public var value: Value? {
        registrar.access(self, keyPath: keys.value)
        return transform == nil ? storedObject.map { $0 as! Value } : storedValue  // Value is Object without a transform
    }

    /// Why the object stopped being followed, if it did.
    public var failure: ObjectGraphError? {
        registrar.access(self, keyPath: keys.failure)
        return storedFailure
    }

    init(context: ManagedObjectContext, predicate: Predicate<Object>, relationshipKeyPathsForRefreshing: Set<String>, transform: ((Object) -> Value)?) {
        self.context = context
        self.predicate = predicate
        self.transform = transform
        subscription = ObjectPublisher(context: context, predicate: predicate, relationshipKeyPathsForRefreshing: relationshipKeyPathsForRefreshing)
            .sink(receiveCompletion: { [weak self] completion in
                if case .failure(let error) = completion { self?.fail(error) }
            }, receiveValue: { [weak self] object in
                self?.show(object)
            })
    }

    private func show(_ object: Object?) {
        registrar.willSet(self, keyPath: keys.object)
        registrar.willSet(self, keyPath: keys.value)
        storedObject = object
        if let transform { storedValue = object.map(transform) }
        registrar.didSet(self, keyPath: keys.value)
        registrar.didSet(self, keyPath: keys.object)
    }

    private struct Keys {
        let object = \ObservableMatch.object
        let value = \ObservableMatch.value
        let failure = \ObservableMatch.failure
    }

    private func fail(_ error: ObjectGraphError) {
        registrar.withMutation(of: self, keyPath: keys.failure) { storedFailure = error }
    }
}

extension ManagedObjectContext {
    /// The one object in this context that matches `predicate`, as an `Observable` object.
    ///
    /// ```swift
    /// let ada = view.observableObject(matching: #Predicate<Profile> { $0.username == "ada" })
    /// withObservationTracking { print(ada.object?.displayName ?? "none") } onChange: { print("changed") }
    /// ```
    ///
    /// See ``ObservableMatch`` for the rules.
    public func observableObject<Object: ManagedObject>(
        matching predicate: Predicate<Object>, relationshipKeyPathsForRefreshing: Set<String> = []
    ) -> ObservableMatch<Object, Object> {
        ObservableMatch(context: self, predicate: predicate, relationshipKeyPathsForRefreshing: relationshipKeyPathsForRefreshing, transform: nil)
    }

    /// The one object in this context that matches `predicate`, mapped by `transform` (made anew
    /// each time the object is inserted or updated), as an `Observable` object.
    public func observableObject<Object: ManagedObject, Value>(
        matching predicate: Predicate<Object>, relationshipKeyPathsForRefreshing: Set<String> = [],
        transform: @escaping (Object) -> Value
    ) -> ObservableMatch<Object, Value> {
        ObservableMatch(context: self, predicate: predicate, relationshipKeyPathsForRefreshing: relationshipKeyPathsForRefreshing, transform: transform)
    }
}
