import Foundation
@testable import ObjectGraph
import Testing

@Suite("History records: grouping and the stored bytes")
struct HistoryRecordTests {
    static func roundTrip(_ record: HistoryRecord, wants: (String) -> Bool = { _ in true }) -> HistoryRecord? {
        record.encoded().withUnsafeBytes { HistoryRecord(decoding: $0, wants: wants) }
    }

    /// Every set of keys drawn from a small range, and a few that stretch the encoding.
    static let keySets: [[Int64]] = {
        var sets: [[Int64]] = []
        for mask in 0..<(1 << 7) {
            sets.append((0..<7).filter { mask & (1 << $0) != 0 }.map { Int64($0) - 2 })
        }
        sets.append(Array(1...100_000))
        sets.append([Int64.min, -1, 0, 1, Int64.max])
        sets.append([Int64.max - 2, Int64.max - 1, Int64.max])
        sets.append(stride(from: 1, to: 10_000, by: 7).map(Int64.init))
        return sets
    }()

    @Test("every small set of keys, and extreme ones, comes back from its bytes as it was")
    func keysRoundTrip() {
        for keys in Self.keySets {
            let record = HistoryRecord(groups: [
                .init(kind: .update, entityName: "Card", keys: ["rank", "title"], primaryKeys: keys),
                .init(kind: .delete, entityName: "Board", keys: [], primaryKeys: keys.reversed().map { $0 / 2 }.sorted().uniqued()),
            ])
            #expect(Self.roundTrip(record) == record, "keys \(keys.prefix(10))")
        }
    }

    @Test("a bulk insert's dense keys take a few bytes, scattered keys about two each")
    func compactEncoding() {
        let dense = HistoryRecord(groups: [.init(kind: .insert, entityName: "Card", keys: [], primaryKeys: Array(1...100_000))])
        #expect(dense.encoded().count < 24)
        let scattered = HistoryRecord(groups: [.init(kind: .insert, entityName: "Card", keys: [], primaryKeys: stride(from: 1, to: 20_000, by: 20).map(Int64.init))])
        #expect(scattered.encoded().count < 1_000 * 3)
    }

    @Test("a reader skips the groups of entities it does not want without expanding them")
    func skipsUnwantedGroups() {
        let record = HistoryRecord(groups: [
            .init(kind: .insert, entityName: "Card", keys: [], primaryKeys: Array(1...1_000)),
            .init(kind: .update, entityName: "Board", keys: ["title"], primaryKeys: [7]),
        ])
        let boards = Self.roundTrip(record) { $0 == "Board" }
        #expect(boards == HistoryRecord(groups: [.init(kind: .update, entityName: "Board", keys: ["title"], primaryKeys: [7])]))
        #expect(Self.roundTrip(record) { _ in false } == HistoryRecord(groups: []))
    }

    @Test("bytes that are not a record, or are cut short, are refused, never misread")
    func refusesDamagedBytes() {
        let bytes = HistoryRecord(groups: [.init(kind: .update, entityName: "Card", keys: ["title"], primaryKeys: [1, 2, 5])]).encoded()
        for length in 0..<bytes.count {
            let cut = Array(bytes.prefix(length))
            #expect(cut.withUnsafeBytes { HistoryRecord(decoding: $0) } == nil, "cut at \(length)")
        }
        var otherVersion = bytes
        otherVersion[0] = 9
        #expect(otherVersion.withUnsafeBytes { HistoryRecord(decoding: $0) } == nil)
        var badKind = bytes
        badKind[2] = 7
        #expect(badKind.withUnsafeBytes { HistoryRecord(decoding: $0) } == nil)
    }

    @Test("a save's record groups its objects by entity, kind and changed properties, each key once and in order")
    func groupsASave() throws {
        let model = HistoryModel.model
        let board = try #require(model.entity(named: "Board"))
        let card = try #require(model.entity(named: "Card"))
        let title = try #require(card.properties.first { $0.name == "title" }).index
        let rank = try #require(card.properties.first { $0.name == "rank" }).index
        var changes = StoreChanges()
        for key in [5, 3, 4] as [Int64] { changes.inserted.append(StoredRow(id: ObjectID(entity: card, primaryKey: key), version: 1, slots: [])) }
        changes.updated = [
            RowUpdate(id: ObjectID(entity: card, primaryKey: 9), baseVersion: 1, changes: [title: .string("x")], committed: []),
            RowUpdate(id: ObjectID(entity: card, primaryKey: 1), baseVersion: 1, changes: [title: .string("y"), rank: .integer(2)], committed: []),
            RowUpdate(id: ObjectID(entity: card, primaryKey: 2), baseVersion: 1, changes: [title: .string("z")], committed: []),
        ]
        changes.deleted = [ObjectID(entity: board, primaryKey: 1)]
        let record = HistoryRecord(changes, detached: [
            ObjectID(entity: card, primaryKey: 9): DetachedRow(row: StoredRow(id: ObjectID(entity: card, primaryKey: 9), version: 2, slots: []), keys: ["title"]),
        ])
        #expect(record.groups == [
            .init(kind: .insert, entityName: "Card", keys: [], primaryKeys: [3, 4, 5]),
            .init(kind: .update, entityName: "Card", keys: ["title"], primaryKeys: [2, 9]),
            .init(kind: .update, entityName: "Card", keys: ["rank", "title"], primaryKeys: [1]),
            .init(kind: .delete, entityName: "Board", keys: [], primaryKeys: [1]),
        ])
    }
}

extension Array where Element: Hashable {
    func uniqued() -> [Element] {
        var seen: Set<Element> = []
        return filter { seen.insert($0).inserted }
    }
}

@Suite("Change feed position: what a look at the store calls for")
struct FeedPositionTests {
    static let state = HistoryState(storeIdentifier: "A", lastToken: 10, trimmedThrough: 0)

    @Test("the container's own transactions right after the token move it; after another writer's, they wait to be skipped")
    func ownTransactions() {
        var position = FeedPosition(state: Self.state, ownWrites: 3)
        position.noteOwn(11)
        position.noteOwn(12)
        #expect(position.token == 12 && position.own.isEmpty)
        // 13 is another writer's: 14 and 15 wait behind it.
        position.noteOwn(14)
        position.noteOwn(15)
        #expect(position.token == 12 && position.own == [14, 15])
        position.advance(to: 14)
        #expect(position.token == 14 && position.own == [15])
        position.noteOwn(9)  // already behind: ignored
        #expect(position.own == [15])
    }

    @Test("a commit follows the history when it moved, resets when other programs' count moved (whatever else moved), and is nothing otherwise")
    func decisions() {
        var position = FeedPosition(state: Self.state, ownWrites: 3)
        func state(_ token: Int64, foreign: Int64) -> HistoryState {
            HistoryState(storeIdentifier: "A", lastToken: token, trimmedThrough: 0, foreignWrites: foreign)
        }
        #expect(position.decide(after: Self.state, ownWrites: 4) == .nothing)  // keys or progress written
        #expect(position.decide(after: state(11, foreign: 0), ownWrites: 5) == .follow)
        position.advance(to: 11)
        #expect(position.decide(after: state(11, foreign: 0), ownWrites: 5) == .nothing)  // a checkpoint changes no row
        #expect(position.decide(after: state(11, foreign: 1), ownWrites: 5) == .reset)  // the sqlite3 shell
        position.restart(at: state(11, foreign: 1), ownWrites: 5)
        #expect(position.decide(after: state(13, foreign: 2), ownWrites: 7) == .reset)  // the shell between two saves of others
        position.restart(at: state(13, foreign: 2), ownWrites: 7)
        #expect(position.decide(after: state(13, foreign: 2), ownWrites: 7) == .nothing)
        position.noteOwnWriteWithoutHistory()
        #expect(position.decide(after: state(13, foreign: 3), ownWrites: 7) == .nothing)  // perhaps this container's own save
        #expect(position.decide(after: state(13, foreign: 4), ownWrites: 7) == .reset)
        #expect(position.decide(after: HistoryState(storeIdentifier: "B", lastToken: 1, trimmedThrough: 0), ownWrites: 6) == .reset)
        position.restart(at: HistoryState(storeIdentifier: "B", lastToken: 1, trimmedThrough: 0), ownWrites: 6)
        #expect(position.token == 1 && position.storeIdentifier == "B")
        #expect(position.decide(after: HistoryState(storeIdentifier: "B", lastToken: 1, trimmedThrough: 0), ownWrites: 7) == .nothing)
    }

    @Test("the state moved when another store, other writers' transactions or other programs' writes show in it")
    func moved() {
        var position = FeedPosition(state: Self.state, ownWrites: 3)
        #expect(!position.hasMoved(comparedWith: Self.state))
        #expect(position.hasMoved(comparedWith: HistoryState(storeIdentifier: "A", lastToken: 11, trimmedThrough: 0)))
        #expect(position.hasMoved(comparedWith: HistoryState(storeIdentifier: "A", lastToken: 10, trimmedThrough: 0, foreignWrites: 1)))
        #expect(position.hasMoved(comparedWith: HistoryState(storeIdentifier: "B", lastToken: 10, trimmedThrough: 0)))
        position.noteOwn(11)
        #expect(!position.hasMoved(comparedWith: HistoryState(storeIdentifier: "A", lastToken: 11, trimmedThrough: 0)))
        let empty = HistoryState(storeIdentifier: "", lastToken: 0, trimmedThrough: 0)
        #expect(FeedPosition(state: empty, ownWrites: 0).hasMoved(comparedWith: empty))
    }

    @Test("a wake-up for a transaction already read, or the container's own, calls for nothing; any other transaction does")
    func accountsFor() {
        var position = FeedPosition(state: Self.state, ownWrites: 3)
        #expect((1...10).allSatisfy { position.accountsFor($0) })
        #expect(!position.accountsFor(11))
        position.noteOwn(12)  // 11 is another writer's, not read yet
        #expect(!position.accountsFor(11) && position.accountsFor(12) && !position.accountsFor(13))
        position.advance(to: 11)
        #expect(position.accountsFor(11) && position.accountsFor(12) && !position.accountsFor(13))
    }

    @Test("a NOTIFY's payload: a save's token is a committed transaction; another program's empty payload, or anything else, a look")
    func wakeUpPayloads() {
        #expect(WakeUp(notificationPayload: "42") == .committed(token: 42))
        #expect(WakeUp(notificationPayload: "") == .look)
        #expect(WakeUp(notificationPayload: "4x2") == .look)
        #expect(WakeUp(notificationPayload: " 42") == .look)
    }

    @Test("a NOTIFY's payload may name, after the token, the rows a small save inserted or updated; a hint that cannot be read is dropped, never the token")
    func wakeUpPayloadsNamingRows() {
        #expect(WakeUp(notificationPayload: "42 Card=3,5 Board=7") == .committed(token: 42, written: ["Card": [3, 5], "Board": [7]]))
        #expect(WakeUp(notificationPayload: "42 Card=3 Card=5") == .committed(token: 42, written: ["Card": [3, 5]]))
        for broken in ["42 Card=", "42 Card=3,x", "42 =3", "42 Card", "42 Card=3 ", "42 Card=3=4"] {
            #expect(WakeUp(notificationPayload: broken) == .committed(token: 42), "\(broken)")
        }
    }

    @Test("what a save's NOTIFY adds to its token: the inserted and updated rows by entity, none deleted; nothing for more than 100 rows")
    func notificationSuffix() {
        let record = HistoryRecord(groups: [
            .init(kind: .insert, entityName: "Card", keys: [], primaryKeys: [4]),
            .init(kind: .update, entityName: "Board", keys: ["title"], primaryKeys: [1]),
            .init(kind: .update, entityName: "Card", keys: ["rank"], primaryKeys: [2, 3]),
            .init(kind: .delete, entityName: "Card", keys: [], primaryKeys: [9]),
        ])
        let suffix = WakeUp.notificationSuffix(for: record)
        #expect(suffix == " Card=4,2,3 Board=1")
        #expect(WakeUp(notificationPayload: "7" + suffix) == .committed(token: 7, written: ["Card": [4, 2, 3], "Board": [1]]))
        let big = HistoryRecord(groups: [.init(kind: .insert, entityName: "Card", keys: [], primaryKeys: Array(1...101))])
        #expect(WakeUp.notificationSuffix(for: big) == "")
        let deletes = HistoryRecord(groups: [.init(kind: .delete, entityName: "Card", keys: [], primaryKeys: [1])])
        #expect(WakeUp.notificationSuffix(for: deletes) == "")
    }

    @Test("a file without history tables: a commit that moved neither the store's own count nor the history bypassed it")
    func decisionsWithoutHistory() {
        let empty = HistoryState(storeIdentifier: "", lastToken: 0, trimmedThrough: 0)
        var position = FeedPosition(state: empty, ownWrites: 0)
        #expect(position.decide(after: empty, ownWrites: 0) == .reset)
        #expect(position.decide(after: empty, ownWrites: 1) == .nothing)
        #expect(position.decide(after: HistoryState(storeIdentifier: "A", lastToken: 1, trimmedThrough: 0), ownWrites: 2) == .follow)
    }
}

@Suite("History trimming: how far history may go")
struct HistoryTrimmingPlanTests {
    static func reader(_ name: String, _ token: Int64, secondsAgo: TimeInterval, endpoint: String? = nil) -> HistoryReader {
        HistoryReader(name: name, token: HistoryToken(storeIdentifier: "S", value: token), lastSeen: Date(timeIntervalSinceNow: -secondsAgo), isContainer: endpoint != nil, endpoint: endpoint)
    }

    @Test("history goes up to the slowest reader that still counts; silent readers and dead containers stop counting")
    func plan() {
        let trimming = HistoryTrimming.automatic(readerTimeout: .seconds(60))
        let readers = [
            Self.reader("sync", 7, secondsAgo: 10),
            Self.reader("old", 2, secondsAgo: 600),
            Self.reader("alive", 9, secondsAgo: 1, endpoint: "e1"),
            Self.reader("dead", 3, secondsAgo: 1, endpoint: "e2"),
            Self.reader("unknown", 5, secondsAgo: 1, endpoint: "e3"),
        ]
        let plan = trimming.plan(readers: readers, latest: 20, now: Date()) { endpoint in
            switch endpoint {
            case "e1": true
            case "e2": false
            default: nil
            }
        }
        #expect(plan.through == 5)
        #expect(Set(plan.gone) == ["old", "dead"])
        #expect(trimming.plan(readers: [], latest: 20, now: Date()) { _ in nil }.through == 20)
    }

    @Test("an open container that has recorded nothing holds back history from its start token; once recorded, its record counts")
    func unrecordedListeners() {
        let trimming = HistoryTrimming.automatic(readerTimeout: .seconds(60))
        let readers = [Self.reader("app", 9, secondsAgo: 1, endpoint: "app-pipe")]
        let widget = trimming.plan(readers: readers, latest: 20, now: Date(), unrecorded: ["widget-pipe": 4, "app-pipe": 1]) { _ in true }
        #expect(widget.through == 4, "the app's own pipe is covered by its record")
        #expect(widget.gone.isEmpty)
        #expect(trimming.plan(readers: readers, latest: 20, now: Date()) { _ in true }.through == 9)
    }

    @Test("a pipe names its start token and age; only live listeners within the age cap count")
    func listenerStartsOfPipes() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("pipes.sqlite").path
            _ = FileManager.default.createFile(atPath: path, contents: Data())
            let channel = FIFOWakeUpChannel(storePath: path)
            let endpoint = try #require(channel.startListening(on: DispatchQueue(label: "test.pipes"), from: 42) { _ in })
            let other = FIFOWakeUpChannel(storePath: path)
            #expect(other.listenerStarts(maximumAge: 60) == [endpoint: 42])
            #expect(other.listenerStarts(maximumAge: -10).isEmpty, "older than the cap")
            // A pipe left by a process that died: nobody reads it.
            mkfifo(path + "-wakeups/3-\(Int64(Date().timeIntervalSince1970))-DEAD", 0o600)
            #expect(other.listenerStarts(maximumAge: 60) == [endpoint: 42])
            channel.stopListening()
            #expect(other.listenerStarts(maximumAge: 60).isEmpty)
        }
    }
}
