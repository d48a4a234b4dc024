/// A publisher that replays a recorded list of values and a completion to each subscriber.
///
/// ```swift
/// let record = Record<Int, Never> { recording in
///     recording.receive(1)
///     recording.receive(2)
///     recording.receive(completion: .finished)
/// }
/// ```
public struct Record<Output, Failure: Error>: Publisher {
    /// The values and completion this publisher replays.
    public let recording: Recording

    /// Creates a record by filling in a recording.
    public init(record: (inout Recording) -> Void) {
        var recording = Recording()
        record(&recording)
        self.recording = recording
    }

    /// Creates a record from an existing recording.
    public init(recording: Recording) { self.recording = recording }

    /// Creates a record of `output` followed by `completion`.
    public init(output: [Output], completion: Subscribers.Completion<Failure>) {
        self.init(recording: Recording(output: output, completion: completion))
    }

    /// Replays the values within demand, then the completion.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        SequenceSubscription.start(recording.output, completion: recording.completion, downstream: subscriber, isRecord: true)
    }

    /// A list of values followed by a completion.
    public struct Recording {
        /// The type of the recorded values, as Combine names it.
        public typealias Input = Output

        /// The recorded values.
        public private(set) var output: [Output]
        /// The recorded completion (`.finished` until one is recorded).
        public private(set) var completion: Subscribers.Completion<Failure>
        private var isComplete: Bool

        /// An empty, open recording.
        public init() {
            output = []
            completion = .finished
            isComplete = false
        }

        /// A finished recording of `output` and `completion`.
        public init(output: [Output], completion: Subscribers.Completion<Failure> = .finished) {
            self.output = output
            self.completion = completion
            self.isComplete = true
        }

        /// Records a value. Recording after the completion is a programming error.
        public mutating func receive(_ input: Output) {
            precondition(!isComplete, "Record.Recording: a value was recorded after the completion")
            output.append(input)
        }

        /// Records the completion. Recording a second one is a programming error.
        public mutating func receive(completion: Subscribers.Completion<Failure>) {
            precondition(!isComplete, "Record.Recording: a second completion was recorded")
            self.completion = completion
            isComplete = true
        }
    }
}

extension Record.Recording: Sendable where Output: Sendable, Failure: Sendable {}

extension Record: Codable where Output: Codable, Failure: Codable {}

extension Record.Recording: Codable where Output: Codable, Failure: Codable {
    private enum CodingKeys: String, CodingKey {
        case output
        case completion
    }

    /// Decodes a finished recording: its values and its completion.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            output: try container.decode([Output].self, forKey: .output),
            completion: try container.decode(Subscribers.Completion<Failure>.self, forKey: .completion))
    }

    /// Encodes the values and the completion (Combine's older spelling of ``encode(to:)``).
    public func encode(into encoder: any Encoder) throws {
        try encode(to: encoder)
    }

    /// Encodes the values and the completion.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(output, forKey: .output)
        try container.encode(completion, forKey: .completion)
    }
}
extension Record: Sendable where Output: Sendable, Failure: Sendable {}
