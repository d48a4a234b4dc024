/// A property wrapper that publishes its property: `$property` is a publisher of the current
/// value followed by every new value.
///
/// As in Combine, subscribers receive a new value *before* the property changes (in `willSet`),
/// and an ``ObservableObject`` that owns the property sends `objectWillChange` first.
///
/// ```swift
/// final class Counter: ObservableObject {
///     @Published var count = 0
/// }
/// let counter = Counter()
/// let cancellable = counter.$count.sink { print($0) }   // 0
/// counter.count += 1                                    // 1
/// ```
@propertyWrapper
public struct Published<Value> {
    private let storage: PublishedSubject

    /// Creates the property with its initial value.
    public init(wrappedValue: Value) {
        storage = PublishedSubject(wrappedValue)
    }

    /// Creates the property with its initial value.
    public init(initialValue: Value) {
        self.init(wrappedValue: initialValue)
    }

    /// The property's value. Setting it notifies `objectWillChange`, then the publisher.
    ///
    /// A mutation through the property (`rows.append(row)`, `try rows.apply(difference) { … }`)
    /// notifies `objectWillChange` first. While nothing subscribes to `$property` it then
    /// changes the value in place, so that a large array is not copied; otherwise it changes a
    /// copy, sends that to the subscribers and then stores it, as setting does. As with any
    /// stored property, reading the property from inside its own in-place mutation is an
    /// overlapping access.
    public var wrappedValue: Value {
        get { storage.value }
        nonmutating set { storage.set(newValue) }
        nonmutating _modify { yield &storage.valueForMutation }
    }

    /// The property's value, read and written through the object that owns it — how Swift
    /// reaches a wrapped property of a class, and Combine's public way to reach it. It behaves as
    /// ``wrappedValue``: setting notifies `objectWillChange`, then the publisher, and a mutation
    /// changes the value in place while nothing subscribes.
    ///
    /// ```swift
    /// final class Counter: ObservableObject { @Published var count = 0 }
    /// let counter = Counter()
    /// Published<Int>[_enclosingInstance: counter, wrapped: \.count, storage: \._count] += 1
    /// ```
    public static subscript<EnclosingSelf: AnyObject>(
        _enclosingInstance object: EnclosingSelf,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Published<Value>>
    ) -> Value {
        get { object[keyPath: storageKeyPath].storage.value }
        set { object[keyPath: storageKeyPath].storage.set(newValue) }
        _modify { yield &object[keyPath: storageKeyPath].storage.valueForMutation }
    }

    /// A publisher of the current value and every later one.
    ///
    /// The setter exists so that `&$property` can be passed to ``Publisher/assign(to:)``.
    public var projectedValue: Publisher {
        get { Publisher(storage: storage) }
        // swiftlint:disable:next unused_setter_value
        set {}
    }

    /// The publisher behind `$property`.
    public struct Publisher: Streams.Publisher {
        /// The property's type.
        public typealias Output = Value
        /// It cannot fail.
        public typealias Failure = Never

        fileprivate let storage: PublishedSubject

        /// Attaches `subscriber`; it receives the current value on its first demand.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Value, S.Failure == Never {
            storage.subject.subscribe(subscriber)
        }
    }

    /// The property's state, shared by the wrapper and its publisher (named after Combine's
    /// class, which its subscriptions show as their parent). Like the object that owns the
    /// property, it is meant to be used from one thread at a time.
    fileprivate final class PublishedSubject {
        var value: Value
        private var lazySubject: CurrentValueSubject<Value, Never>?
        var objectWillChange: ObservableObjectPublisher?
        var assignment: AnyCancellable?

        init(_ value: Value) { self.value = value }

        var subject: CurrentValueSubject<Value, Never> {
            if let lazySubject { return lazySubject }
            let subject = CurrentValueSubject<Value, Never>(value, describedAs: "PublishedSubject")
            subject.core.subject = self  // Combine's subscriptions show the property's subject
            lazySubject = subject
            return subject
        }

        func set(_ newValue: Value) {
            objectWillChange?.send()
            publishAndStore(newValue)
        }

        /// The value as a mutation through the property sees it (`rows.append(row)`): first
        /// `objectWillChange`; then, while nothing subscribes, the value itself, changed in place
        /// so that a large array is not copied; otherwise a copy, published and stored after the
        /// mutation, as setting does.
        var valueForMutation: Value {
            get { value }
            _modify {
                objectWillChange?.send()
                if releaseSubjectIfIdle() {
                    yield &value
                } else {
                    var changed = value
                    yield &changed
                    publishAndStore(changed)
                }
            }
        }

        /// Sends `newValue` to the subscribers, then makes it the value (Combine's `willSet`).
        func publishAndStore(_ newValue: Value) {
            lazySubject?.send(newValue)
            value = newValue
        }

        /// Drops the subject if nobody subscribes to it, so that `value` is the only reference
        /// to the value and can change in place; returns whether there is no subject now. A
        /// later subscription makes a new subject from the current value, so no subscriber can
        /// tell.
        func releaseSubjectIfIdle() -> Bool {
            if let lazySubject, lazySubject.core.subscriberCount == 0 { self.lazySubject = nil }
            return lazySubject == nil
        }
    }
}

extension Published: ObjectWillChangeSharing {
    func shareObjectWillChange(_ candidate: ObservableObjectPublisher?) -> ObservableObjectPublisher {
        if let existing = storage.objectWillChange { return existing }
        let publisher = candidate ?? ObservableObjectPublisher()
        storage.objectWillChange = publisher
        return publisher
    }
}

extension Publisher where Failure == Never {
    /// Republishes every value through a `@Published` property, for as long as that property
    /// lives.
    ///
    /// ```swift
    /// final class ViewModel: ObservableObject {
    ///     @Published var total = 0
    ///     init(prices: some Publisher<Int, Never>) {
    ///         prices.scan(0, +).assign(to: &$total)
    ///     }
    /// }
    /// ```
    public func assign(to published: inout Published<Output>.Publisher) {
        let storage = published.storage
        let sink = Subscribers.Sink<Output, Never>(receiveCompletion: { _ in }) { [weak storage] value in
            storage?.set(value)
        }
        storage.assignment = AnyCancellable(sink)
        subscribe(sink)
    }
}
