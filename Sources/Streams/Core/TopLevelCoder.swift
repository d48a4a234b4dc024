/// A type that decodes a whole value from one input, such as `JSONDecoder` from `Data`.
///
/// The shape Combine gives ``Publisher/decode(type:decoder:)``; `JSONDecoder` and
/// `PropertyListDecoder` conform.
///
/// ```swift
/// let names = Just(#"["Ada"]"#.data(using: .utf8)!)
///     .decode(type: [String].self, decoder: JSONDecoder())
/// ```
public protocol TopLevelDecoder<Input> {
    /// What the decoder reads, such as `Data`.
    associatedtype Input

    /// Decodes a value of `type` from `from`.
    func decode<T: Decodable>(_ type: T.Type, from: Input) throws -> T
}

/// A type that encodes a whole value to one output, such as `JSONEncoder` to `Data`.
///
/// The shape Combine gives ``Publisher/encode(encoder:)``; `JSONEncoder` and
/// `PropertyListEncoder` conform.
public protocol TopLevelEncoder<Output> {
    /// What the encoder writes, such as `Data`.
    associatedtype Output

    /// Encodes `value`.
    func encode<T: Encodable>(_ value: T) throws -> Output
}
