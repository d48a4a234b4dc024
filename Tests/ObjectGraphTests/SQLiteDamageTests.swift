import Foundation
@testable import ObjectGraph
import Testing

/// How many pages of the damaged file the sweep tries: `OBJECTGRAPH_DAMAGE_PAGES`, every page by
/// default (the file has a few dozen).
private let pageLimit = Int(ProcessInfo.processInfo.environment["OBJECTGRAPH_DAMAGE_PAGES"] ?? "") ?? .max

/// Opening does not read the whole file (it costs the same at any size), so damage is met by
/// the first read or write that touches it. Each case damages a copy of one store at one place,
/// then opens it, reads everything, and saves: every step either works or throws a typed
/// error, never crashes; once damage has been met nothing more is written; and a step that
/// fails leaves the file as it was.
@Suite("SQLite store: damage met after a cheap open")
struct SQLiteDamageTests {
    /// A store with every kind of row and relationship, closed so that the file alone holds it.
    static let pristine: Data = {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ObjectGraphDamage-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("store.sqlite")
        try! SQLiteFixture.withViewContext(at: url) { context in
            let owner = Owner(context: context)
            owner.name = "owner"
            let tags = (0..<4).map { index -> Tag in
                let tag = Tag(context: context)
                tag.title = "tag \(index)"
                return tag
            }
            for bucketIndex in 0..<12 {
                let bucket = Bucket(context: context)
                bucket.name = "bucket \(bucketIndex) " + String(repeating: "x", count: 40)
                bucket.owner = owner
                for index in 0..<25 {
                    let content = index % 5 == 0 ? ImageContent(context: context) : Content(context: context)
                    content.name = "content \(bucketIndex).\(index) " + String(repeating: "y", count: 60)
                    content.rank = bucketIndex * 100 + index
                    content.isEven = index % 2 == 0
                    content.bucket = bucket
                    content.tags = [tags[index % 4]]
                }
            }
            for index in 0..<30 {
                let all = AllTypes(context: context)
                all.int = index
                all.string = "all \(index)"
                all.data = Data(repeating: UInt8(index), count: 64)
                all.optionalDate = Date(timeIntervalSinceReferenceDate: Double(index))
            }
            try context.save()
        }
        return SQLiteFixture.contents(of: url)!
    }()

    static let pageSize = 4_096

    /// Ways of damaging the bytes at an offset.
    enum Damage: CaseIterable {
        case flipByte, zeroRun, scrambleRun

        func apply(to bytes: inout Data, at offset: Int) {
            let end = min(offset + 24, bytes.count)
            switch self {
            case .flipByte: bytes[offset] ^= 0xFF
            case .zeroRun: for index in offset..<end { bytes[index] = 0 }
            case .scrambleRun: for index in offset..<end { bytes[index] ^= UInt8(truncatingIfNeeded: index &* 151 &+ 0x5A) }
            }
        }
    }

    /// The places each page is damaged at: its header, its cell pointers, its cells.
    static let offsetsInPage = [0, 1, 3, 5, 7, 8, 12, 100, 101, 104, 108, 300, 1_000, 2_048, 3_000, 4_000, 4_090]

    /// What one damaged copy did.
    struct Outcome {
        var errors: [String] = []
        var metDamage = false
    }

    @Test("every page damaged at many places: a typed error or a working store, never a crash, and no write once damage is met",
          arguments: Array(0..<(SQLiteDamageTests.pristine.count / SQLiteDamageTests.pageSize)).prefix(pageLimit))
    func damagedPage(page: Int) throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            for (number, inPage) in Self.offsetsInPage.enumerated() {
                let offset = page * Self.pageSize + inPage
                guard offset < Self.pristine.count else { continue }
                let damage = Damage.allCases[number % Damage.allCases.count]
                var bytes = Self.pristine
                damage.apply(to: &bytes, at: offset)
                guard bytes != Self.pristine else { continue }
                let url = directory.appendingPathComponent("damaged-\(page)-\(inPage).sqlite")
                try bytes.write(to: url)
                let outcome = exercise(url)
                let where_ = "page \(page), offset \(inPage), \(damage)"
                if !outcome.errors.isEmpty {
                    #expect(SQLiteFixture.contents(of: url) == bytes, "\(where_): a step failed (\(outcome.errors)) but the file was written")
                }
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
            }
        }
    }

    /// Opens, reads everything, saves; records what failed. Every failure must be an
    /// ``ObjectGraphError``; once damage was met, the save must be refused as damage.
    func exercise(_ url: URL) -> Outcome {
        var outcome = Outcome()
        func note(_ error: any Error, _ step: String) {
            guard let error = error as? ObjectGraphError else {
                Issue.record("\(url.lastPathComponent) \(step): an error that is not an ObjectGraphError: \(error)")
                return
            }
            if case .corruptStore = error { outcome.metDamage = true }
            outcome.errors.append("\(step): \(error)")
        }
        let container: PersistentContainer
        do {
            container = try SQLiteFixture.container(at: url)
        } catch {
            note(error, "open")
            return outcome
        }
        defer { container.close() }
        let context = container.viewContext
        context.performAndWait {
            do {
                for bucket in try context.fetch(FetchRequest<Bucket>(sortBy: [SortDescriptor(\.name)])) {
                    _ = (bucket.name, bucket.owner?.name, bucket.contents.map(\.rank).sorted())
                }
                for content in try context.fetch(FetchRequest<Content>(predicate: #Predicate { $0.rank >= 0 })) {
                    _ = (content.name, content.creationDate, content.isEven, content.bucket?.name, content.tags.map(\.title))
                }
                for all in try context.fetch(FetchRequest<AllTypes>()) {
                    _ = (all.int, all.string, all.data, all.optionalDate, all.uuid, all.double)
                }
                _ = try context.count(for: FetchRequest<Tag>())
            } catch {
                note(error, "read")
            }
            let damageMetBeforeSave = outcome.metDamage
            do {
                let bucket = Bucket(context: context)
                bucket.name = "added after the damage"
                let content = Content(context: context)
                content.name = "added content"
                content.bucket = bucket
                try context.save()
                #expect(!damageMetBeforeSave, "\(url.lastPathComponent): a save was written after a read had met damage")
            } catch {
                note(error, "save")
                if damageMetBeforeSave {
                    guard case .corruptStore? = error as? ObjectGraphError else {
                        Issue.record("\(url.lastPathComponent): after damage was met, the save failed with \(error) instead of corruptStore")
                        return
                    }
                }
            }
        }
        return outcome
    }

    /// Writes the store with its last page damaged (far from the schema and the metadata the
    /// open reads) to `url`; returns the bytes written.
    static func writeDamagedLastPage(to url: URL) throws -> Data {
        var bytes = pristine
        let last = bytes.count - pageSize
        for index in last..<(last + 64) { bytes[index] ^= 0xA5 }
        try bytes.write(to: url)
        return bytes
    }

    @Test("a read that meets damage throws corruptStore naming the file, and the store then refuses to write")
    func damageRefusesLaterWrites() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("damaged.sqlite")
            let bytes = try Self.writeDamagedLastPage(to: url)
            let container = try SQLiteFixture.container(at: url)
            try container.viewContext.performAndWait {
                let context = container.viewContext
                let read = Result { try context.fetch(FetchRequest<AllTypes>()).map(\.data) + context.fetch(FetchRequest<Content>()).map { Data($0.name.utf8) } }
                guard case .failure(let error) = read else {
                    Issue.record("the read met no damage; the sweep covers this file")
                    return
                }
                guard case let .corruptStore(path, _)? = error as? ObjectGraphError else {
                    Issue.record("expected corruptStore, got \(error)")
                    return
                }
                #expect(path == url.path)
                Bucket(context: context).name = "not written"
                let save = try #require(throws: ObjectGraphError.self) { try context.save() }
                guard case .corruptStore = save else {
                    Issue.record("expected the save to be refused as damage, got \(save)")
                    return
                }
            }
            container.close()
            #expect(SQLiteFixture.contents(of: url) == bytes)
        }
    }

    @Test("checkIntegrity finds damage no read has met, and passes on a sound store")
    func explicitCheck() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let sound = directory.appendingPathComponent("sound.sqlite")
            try Self.pristine.write(to: sound)
            try SQLiteFixture.container(at: sound).checkIntegrity()

            let url = directory.appendingPathComponent("damaged.sqlite")
            let bytes = try Self.writeDamagedLastPage(to: url)
            let container = try SQLiteFixture.container(at: url)
            let error = try #require(throws: ObjectGraphError.self) { try container.checkIntegrity() }
            guard case let .corruptStore(path, message) = error else {
                Issue.record("expected corruptStore, got \(error)")
                return
            }
            #expect(path == url.path)
            #expect(!message.isEmpty)
            container.close()
            #expect(SQLiteFixture.contents(of: url) == bytes)
        }
    }
}
