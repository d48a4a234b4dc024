import Streams

/// A store's statements for the shapes of the fetches it has run (see ``FetchShape``), so that
/// a fetch of a known shape neither translates its predicate nor writes SQL.
///
/// A shape's statement is used only once a second translation, with other values, gave the
/// text and the parameters that filling the first one's gives; a shape whose translations
/// disagree is never cached. The SQL depends on the store's schema, which is fixed for the
/// life of a store (a migration runs when one is opened), so a cache lives with its store.
///
/// Bounded: past ``capacity`` shapes the one used longest ago goes. Thread-safe: every
/// context of the store fetches through it.
final class FetchStatementCache: @unchecked Sendable {  // `lock` protects `entries` and `clock`
    /// What is known of one shape.
    enum State {
        /// Translated once, with `values`; not yet confirmed by another translation.
        case candidate(PreparedFetch, values: [PropertyValue])
        /// Confirmed: fetches of the shape use it.
        case confirmed(PreparedFetch)
        /// Two translations disagreed: always translated.
        case uncacheable
    }

    /// A class, so that a hit updates its use in place, without hashing the key again.
    private final class Entry {
        var state: State
        var lastUse: UInt64

        init(state: State, lastUse: UInt64) {
            self.state = state
            self.lastUse = lastUse
        }
    }

    /// How many shapes are kept.
    let capacity: Int
    private let lock = Lock()
    private var entries: [FetchShapeKey: Entry] = [:]
    private var clock: UInt64 = 0

    init(capacity: Int = 256) {
        self.capacity = capacity
    }

    /// The statement for a fetch of `key` with `values`: the confirmed one, or the candidate
    /// when these are the values it was translated with (a shape without values, or the same
    /// fetch again).
    func statement(for key: FetchShapeKey, values: [PropertyValue]) -> PreparedFetch? {
        lock.withLock {
            guard let entry = entries[key] else { return nil }
            let found: PreparedFetch
            switch entry.state {
            case .confirmed(let statement): found = statement
            case .candidate(let statement, let translatedValues) where translatedValues == values: found = statement
            case .candidate, .uncacheable: return nil
            }
            clock += 1
            entry.lastUse = clock
            return found
        }
    }

    /// Whether fetches of `key` are translated without being recorded.
    func isUncacheable(_ key: FetchShapeKey) -> Bool {
        lock.withLock {
            if case .uncacheable? = entries[key]?.state { true } else { false }
        }
    }

    /// Records what a translation of a fetch of `key` with `values` gave: `statement`, or
    /// `nil` when its text could not be separated from its values.
    func record(_ key: FetchShapeKey, values: [PropertyValue], text: SQLStatementText, statement: PreparedFetch?) {
        lock.withLock {
            clock += 1
            switch entries[key]?.state {
            case nil:
                guard let statement else { return }
                if entries.count >= capacity, let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key {
                    entries[oldest] = nil
                }
                entries[key] = Entry(state: .candidate(statement, values: values), lastUse: clock)
            case .candidate(let first, let firstValues)?:
                // The same values prove nothing: wait for others.
                guard values != firstValues else { return }
                let agrees = first.text(binding: values) == text
                entries[key] = Entry(state: agrees ? .confirmed(first) : .uncacheable, lastUse: clock)
            case .confirmed?, .uncacheable?:
                return
            }
        }
    }

    /// How many shapes are known (for tests).
    var count: Int { lock.withLock { entries.count } }

    /// The state of `key` (for tests).
    func state(of key: FetchShapeKey) -> State? { lock.withLock { entries[key]?.state } }
}
