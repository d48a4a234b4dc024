import Foundation

/// How a container trims its store's persistent history.
///
/// Every reader of the history records how far it has read: each open container (its live
/// results follow other writers through the history), and each named reader your code records
/// with ``PersistentHistory/recordProgress(_:reader:)``. Automatic trimming deletes the
/// transactions every reader has read. A reader that has not recorded progress for
/// ``readerTimeout`` (a process that was killed and never came back, an app not opened for
/// weeks) no longer holds history back; an open container on the same machine whose process
/// died is recognised at once. A reader whose history was trimmed meets
/// ``ObjectGraphError/historyTokenExpired(path:token:oldestAvailable:)``, and live results in
/// that situation start over with a fresh fetch.
///
/// ```swift
/// var options = ChangeFeedOptions()
/// options.trimming = .automatic(readerTimeout: .seconds(3 * 24 * 3600))
/// let container = try PersistentContainer(model: model, storeURL: url, changeFeed: options)
/// ```
public struct HistoryTrimming: Sendable, Equatable {
    /// Whether transactions every reader has read are deleted automatically.
    public var isAutomatic: Bool
    /// How long a reader that records no progress keeps holding history back.
    public var readerTimeout: Duration

    /// Trims what every reader has read; readers silent for a week stop counting.
    public static let automatic = HistoryTrimming(isAutomatic: true, readerTimeout: .seconds(7 * 24 * 3600))

    /// Trims what every reader has read; readers silent for `readerTimeout` stop counting.
    public static func automatic(readerTimeout: Duration) -> HistoryTrimming {
        HistoryTrimming(isAutomatic: true, readerTimeout: readerTimeout)
    }

    /// Never trims: history grows until you call ``PersistentHistory/deleteHistory(before:)``.
    public static let manual = HistoryTrimming(isAutomatic: false, readerTimeout: .seconds(7 * 24 * 3600))

    /// Where trimming may go: the lowest token of the readers that still count (all of history
    /// when none does), and the readers that no longer count.
    ///
    /// - Parameters:
    ///   - unrecorded: the open containers that listen, by endpoint, with the token each
    ///     started at; those with no reader record hold back the history after it.
    ///   - isListening: whether the live reader behind an endpoint still runs (`nil`: cannot tell).
    func plan(
        readers: [HistoryReader], latest: Int64, now: Date, unrecorded: [String: Int64] = [:], isListening: (String) -> Bool?
    ) -> (through: Int64, gone: [String]) {
        var through = latest
        var gone: [String] = []
        let recorded = Set(readers.compactMap(\.endpoint))
        for (endpoint, start) in unrecorded where !recorded.contains(endpoint) {
            through = min(through, start)
        }
        for reader in readers {
            let silent = now.timeIntervalSince(reader.lastSeen) > readerTimeout.timeInterval
            let died = reader.endpoint.flatMap(isListening) == false
            if silent || died {
                gone.append(reader.name)
            } else {
                through = min(through, reader.token.value)
            }
        }
        return (through, gone)
    }
}

/// A reader of the persistent history, as the store records it.
public struct HistoryReader: Sendable, Equatable {
    /// The reader's name: one your code chose, or a live container's own.
    public let name: String
    /// How far it has read.
    public let token: HistoryToken
    /// When it last recorded progress.
    public let lastSeen: Date
    /// Whether it is an open container (removed when the container closes) rather than a
    /// named reader of your code.
    public let isContainer: Bool
    /// The container's wake-up endpoint, by which a dead process is recognised.
    let endpoint: String?
}

extension Duration {
    /// The duration in seconds, as Foundation and Dispatch count them.
    var timeInterval: TimeInterval {
        TimeInterval(components.seconds) + TimeInterval(components.attoseconds) / 1e18
    }
}
