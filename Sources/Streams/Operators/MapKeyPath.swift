extension Publisher {
    /// Publishes the value of a key path of each upstream value.
    ///
    /// Demand passes through unchanged: one value in, one value out.
    ///
    /// ```swift
    /// struct Person { let name: String }
    /// let cancellable = [Person(name: "Ada"), Person(name: "Alan")].publisher
    ///     .map(\.name)
    ///     .sink { print($0) }   // "Ada", "Alan"
    /// ```
    public func map<T>(_ keyPath: KeyPath<Output, T>) -> Publishers.MapKeyPath<Self, T> {
        Publishers.MapKeyPath(upstream: self, keyPath: keyPath)
    }

    /// Publishes the values of two key paths of each upstream value, as a tuple.
    ///
    /// ```swift
    /// struct Point { let x: Int; let y: Int }
    /// let cancellable = Just(Point(x: 1, y: 2))
    ///     .map(\.x, \.y)
    ///     .sink { print($0) }   // (1, 2)
    /// ```
    public func map<T0, T1>(
        _ keyPath0: KeyPath<Output, T0>,
        _ keyPath1: KeyPath<Output, T1>
    ) -> Publishers.MapKeyPath2<Self, T0, T1> {
        Publishers.MapKeyPath2(upstream: self, keyPath0: keyPath0, keyPath1: keyPath1)
    }

    /// Publishes the values of three key paths of each upstream value, as a tuple.
    ///
    /// ```swift
    /// struct Point3D { let x: Int; let y: Int; let z: Int }
    /// let cancellable = Just(Point3D(x: 1, y: 2, z: 3))
    ///     .map(\.x, \.y, \.z)
    ///     .sink { print($0) }   // (1, 2, 3)
    /// ```
    public func map<T0, T1, T2>(
        _ keyPath0: KeyPath<Output, T0>,
        _ keyPath1: KeyPath<Output, T1>,
        _ keyPath2: KeyPath<Output, T2>
    ) -> Publishers.MapKeyPath3<Self, T0, T1, T2> {
        Publishers.MapKeyPath3(upstream: self, keyPath0: keyPath0, keyPath1: keyPath1, keyPath2: keyPath2)
    }
}

// The three publishers are recipes over ``Publishers/Map``: reading a key path is a stateless
// transformation, so they subscribe through `Map`'s pass-through inner subscriber.

extension Publishers {
    /// A publisher that publishes the value of a key path of each upstream value.
    public struct MapKeyPath<Upstream: Publisher, Output>: Publisher {
        /// Upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher whose values are read.
        public let upstream: Upstream
        /// The key path of the property to publish.
        public let keyPath: KeyPath<Upstream.Output, Output>

        /// Creates a publisher of `keyPath`'s value in each upstream value.
        public init(upstream: Upstream, keyPath: KeyPath<Upstream.Output, Output>) {
            self.upstream = upstream
            self.keyPath = keyPath
        }

        /// Attaches `subscriber`; it receives the key path's value of each upstream value.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let keyPath = keyPath
            upstream.map { $0[keyPath: keyPath] }.subscribe(subscriber)
        }
    }

    /// A publisher that publishes the values of two key paths of each upstream value as a tuple.
    public struct MapKeyPath2<Upstream: Publisher, Output0, Output1>: Publisher {
        /// A tuple of the two properties' values.
        public typealias Output = (Output0, Output1)
        /// Upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher whose values are read.
        public let upstream: Upstream
        /// The key path of the first property to publish.
        public let keyPath0: KeyPath<Upstream.Output, Output0>
        /// The key path of the second property to publish.
        public let keyPath1: KeyPath<Upstream.Output, Output1>

        /// Creates a publisher of the two key paths' values in each upstream value.
        public init(upstream: Upstream, keyPath0: KeyPath<Upstream.Output, Output0>, keyPath1: KeyPath<Upstream.Output, Output1>) {
            self.upstream = upstream
            self.keyPath0 = keyPath0
            self.keyPath1 = keyPath1
        }

        /// Attaches `subscriber`; it receives a tuple of the two values for each upstream value.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let (keyPath0, keyPath1) = (keyPath0, keyPath1)
            upstream.map { ($0[keyPath: keyPath0], $0[keyPath: keyPath1]) }.subscribe(subscriber)
        }
    }

    /// A publisher that publishes the values of three key paths of each upstream value as a tuple.
    public struct MapKeyPath3<Upstream: Publisher, Output0, Output1, Output2>: Publisher {
        /// A tuple of the three properties' values.
        public typealias Output = (Output0, Output1, Output2)
        /// Upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher whose values are read.
        public let upstream: Upstream
        /// The key path of the first property to publish.
        public let keyPath0: KeyPath<Upstream.Output, Output0>
        /// The key path of the second property to publish.
        public let keyPath1: KeyPath<Upstream.Output, Output1>
        /// The key path of the third property to publish.
        public let keyPath2: KeyPath<Upstream.Output, Output2>

        /// Creates a publisher of the three key paths' values in each upstream value.
        public init(
            upstream: Upstream,
            keyPath0: KeyPath<Upstream.Output, Output0>,
            keyPath1: KeyPath<Upstream.Output, Output1>,
            keyPath2: KeyPath<Upstream.Output, Output2>
        ) {
            self.upstream = upstream
            self.keyPath0 = keyPath0
            self.keyPath1 = keyPath1
            self.keyPath2 = keyPath2
        }

        /// Attaches `subscriber`; it receives a tuple of the three values for each upstream value.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let (keyPath0, keyPath1, keyPath2) = (keyPath0, keyPath1, keyPath2)
            upstream.map { ($0[keyPath: keyPath0], $0[keyPath: keyPath1], $0[keyPath: keyPath2]) }.subscribe(subscriber)
        }
    }
}
