/// An object that announces changes before they happen, through `objectWillChange`.
///
/// A class that adopts it gets `objectWillChange` for free; every `@Published` property of the
/// class (superclasses included) sends to it before its value changes.
///
/// ```swift
/// final class Profile: ObservableObject {
///     @Published var name = ""
/// }
/// let profile = Profile()
/// let cancellable = profile.objectWillChange.sink { print("will change") }
/// profile.name = "Ada"   // "will change"
/// ```
public protocol ObservableObject: AnyObject {
    /// The publisher type of `objectWillChange`.
    associatedtype ObjectWillChangePublisher: Publisher = ObservableObjectPublisher
    where ObjectWillChangePublisher.Failure == Never

    /// Emits before any `@Published` property of the object changes.
    var objectWillChange: ObjectWillChangePublisher { get }
}

/// Implemented by `@Published`, so that an object's properties can share one publisher.
protocol ObjectWillChangeSharing {
    func shareObjectWillChange(_ candidate: ObservableObjectPublisher?) -> ObservableObjectPublisher
}

extension ObservableObject where ObjectWillChangePublisher == ObservableObjectPublisher {
    /// The object's change publisher, shared by all of its `@Published` properties.
    ///
    /// An object without `@Published` properties gets one publisher of its own, the same on
    /// every access, so that `willSet { objectWillChange.send() }` reaches its subscribers.
    public var objectWillChange: ObservableObjectPublisher {
        var shared: ObservableObjectPublisher?
        var mirror: Mirror? = Mirror(reflecting: self)
        while let current = mirror {
            for child in current.children {
                if let property = child.value as? any ObjectWillChangeSharing {
                    shared = property.shareObjectWillChange(shared)
                }
            }
            mirror = current.superclassMirror
        }
        return shared ?? ObjectWillChangeRegistry.publisher(for: self)
    }
}

/// The default `objectWillChange` publisher: a `Void` publisher that never fails.
public final class ObservableObjectPublisher: Publisher, @unchecked Sendable {
    /// A `Void` value per change.
    public typealias Output = Void
    /// It cannot fail.
    public typealias Failure = Never

    // All mutable state lives in `subject`, which has its own lock.
    private let subject = PassthroughSubject<Void, Never>(describedAsObjectWillChange: ())

    /// Creates a publisher with no subscribers.
    public init() {}

    /// Attaches `subscriber`.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Void, S.Failure == Never {
        subject.subscribe(subscriber)
    }

    /// Announces a change.
    public func send() { subject.send() }
}
