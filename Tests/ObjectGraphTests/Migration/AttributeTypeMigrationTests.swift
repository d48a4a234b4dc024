import Foundation
import ObjectGraph
import Testing

// One entity, `Ticket`, in the versions an app might ship as its attribute types change.

enum TicketV1 {
    final class Ticket: ManagedObject {
        @Attribute var title: String = ""
        @Attribute var level: Int = 0
        @Attribute var state: String = "open"
        @Attribute var link: String = ""
        @Attribute var place = Place(city: "")
    }

    struct Place: Codable, Equatable {
        var city: String
    }

    static let model = try! ObjectModel(entities: [Ticket.self])

    /// Writes tickets with levels 1...3, states "open" and "done", a URL as text, a place each.
    static func write(at url: URL, levels: [Int] = [1, 2, 3], links: [String]? = nil) throws {
        try SQLiteFixture.withViewContext(at: url, model: model) { context in
            for (index, level) in levels.enumerated() {
                let ticket = Ticket(context: context)
                ticket.title = "t\(level)"
                ticket.level = level
                ticket.state = level == 3 ? "done" : "open"
                ticket.link = links?[index] ?? "https://example.com/\(level)"
                ticket.place = Place(city: "c\(level)")
            }
            try context.save()
        }
    }
}

/// Int → an enum with Int raw values, String → an enum with String raw values.
enum TicketEnums {
    enum Level: Int, Codable, CaseIterable { case low = 1, middle = 2, high = 3 }
    enum State: String, Codable, CaseIterable { case open, done }

    final class Ticket: ManagedObject {
        @Attribute var title: String = ""
        @Attribute var level: Level = .low
        @Attribute var state: State = .open
        @Attribute var link: String = ""
        @Attribute var place = TicketV1.Place(city: "")
    }

    static let model = try! ObjectModel(entities: [Ticket.self])
}

/// The enum gains a case.
enum TicketMoreLevels {
    enum Level: Int, Codable, CaseIterable { case low = 1, middle = 2, high = 3, urgent = 4 }

    final class Ticket: ManagedObject {
        @Attribute var title: String = ""
        @Attribute var level: Level = .low
        @Attribute var state: TicketEnums.State = .open
        @Attribute var link: String = ""
        @Attribute var place = TicketV1.Place(city: "")
    }

    static let model = try! ObjectModel(entities: [Ticket.self])
}

/// The enum loses the case `high`, which tickets hold.
enum TicketFewerLevels {
    enum Level: Int, Codable, CaseIterable { case low = 1, middle = 2 }

    final class Ticket: ManagedObject {
        @Attribute var title: String = ""
        @Attribute var level: Level = .low
        @Attribute var state: TicketEnums.State = .open
        @Attribute var link: String = ""
        @Attribute var place = TicketV1.Place(city: "")
    }

    static let model = try! ObjectModel(entities: [Ticket.self])
}

/// String → URL.
enum TicketURL {
    final class Ticket: ManagedObject {
        @Attribute var title: String = ""
        @Attribute var level: Int = 0
        @Attribute var state: String = "open"
        @Attribute var link = URL(string: "https://example.com")!
        @Attribute var place = TicketV1.Place(city: "")
    }

    static let model = try! ObjectModel(entities: [Ticket.self])
}

/// The Codable type gains a required key, which stored values lack.
enum TicketPlaceV2 {
    struct Place: Codable, Equatable {
        var city: String
        var country: String
    }

    final class Ticket: ManagedObject {
        @Attribute var title: String = ""
        @Attribute var level: Int = 0
        @Attribute var state: String = "open"
        @Attribute var link: String = ""
        @Attribute var place = Place(city: "", country: "")
    }

    static let model = try! ObjectModel(entities: [Ticket.self])
}

/// The Codable type gains an optional key: every stored value still decodes.
enum TicketPlaceOptional {
    struct Place: Codable, Equatable {
        var city: String
        var country: String?
    }

    final class Ticket: ManagedObject {
        @Attribute var title: String = ""
        @Attribute var level: Int = 0
        @Attribute var state: String = "open"
        @Attribute var link: String = ""
        @Attribute var place = Place(city: "", country: nil)
    }

    static let model = try! ObjectModel(entities: [Ticket.self])
}

@Suite("Migration: attribute types change")
struct AttributeTypeMigrationTests {
    /// Runs `body` with a file written by `TicketV1` (levels as given).
    private func withTickets(levels: [Int] = [1, 2, 3], links: [String]? = nil, _ body: (URL) throws -> Void) throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("tickets.sqlite")
            try TicketV1.write(at: url, levels: levels, links: links)
            try body(url)
        }
    }

    /// The error opening `url` with `model` throws, with the file checked unchanged.
    private func refusal(opening url: URL, with model: ObjectModel) throws -> ObjectGraphError? {
        let before = try #require(SQLiteFixture.contents(of: url))
        defer { #expect(SQLiteFixture.contents(of: url) == before, "a refused file must stay exactly as it was") }
        do {
            _ = try SQLiteFixture.container(at: url, model: model)
            return nil
        } catch let error as ObjectGraphError {
            return error
        }
    }

    @Test("Int and String attributes become enums with those raw values: every stored value is a case, so it migrates, and predicates on the enum work")
    func primitiveToEnum() throws {
        try withTickets { url in
            try SQLiteFixture.withViewContext(at: url, model: TicketEnums.model) { context in
                let tickets = try context.fetch(FetchRequest<TicketEnums.Ticket>(sortBy: [SortDescriptor(\.title)]))
                #expect(tickets.map(\.level) == [.low, .middle, .high])
                #expect(tickets.map(\.state) == [.open, .open, .done])
                let done = TicketEnums.State.done
                #expect(try context.fetch(FetchRequest<TicketEnums.Ticket>(predicate: #Predicate { $0.state == done })).map(\.title) == ["t3"])
            }
        }
    }

    @Test("an Int attribute whose stored values are not all cases of the new enum is refused, naming entity, property, stored value and type; nothing changes")
    func primitiveToEnumRefused() throws {
        try withTickets(levels: [1, 7]) { url in
            let error = try refusal(opening: url, with: TicketEnums.model)
            guard case let .undecodableValues(_, values)? = error else {
                Issue.record("expected undecodableValues, got \(String(describing: error))")
                return
            }
            #expect(values.count == 1)
            #expect(values.first?.entity == "Ticket" && values.first?.property == "level" && values.first?.storedValue == "7")
            #expect(values.first?.type == "Level")
            #expect(error.map { String(describing: $0) }?.contains("MigrationStage") == true)
        }
    }

    @Test("an enum that gains a case migrates; one that loses a case no object holds migrates; one that loses a stored case is refused unchanged")
    func enumCases() throws {
        try withTickets(levels: [1, 2, 3]) { url in
            try SQLiteFixture.withViewContext(at: url, model: TicketEnums.model) { _ in }
            try SQLiteFixture.withViewContext(at: url, model: TicketMoreLevels.model) { context in
                let tickets = try context.fetch(FetchRequest<TicketMoreLevels.Ticket>(sortBy: [SortDescriptor(\.title)]))
                #expect(tickets.map(\.level) == [.low, .middle, .high])
                tickets[0].level = .urgent
                try context.save()
            }
            let error = try refusal(opening: url, with: TicketFewerLevels.model)
            guard case let .undecodableValues(_, values)? = error else {
                Issue.record("expected undecodableValues, got \(String(describing: error))")
                return
            }
            #expect(Set(values.map(\.storedValue)) == ["3", "4"])
            #expect(values.allSatisfy { $0.entity == "Ticket" && $0.property == "level" })
        }
        try withTickets(levels: [1, 2]) { url in
            try SQLiteFixture.withViewContext(at: url, model: TicketEnums.model) { _ in }
            try SQLiteFixture.withViewContext(at: url, model: TicketFewerLevels.model) { context in
                let tickets = try context.fetch(FetchRequest<TicketFewerLevels.Ticket>())
                #expect(tickets.count == 2)
            }
        }
    }

    @Test("a String attribute becoming a URL is refused unchanged, naming entity, property, both types and the fix (a migration stage converting it)")
    func stringToURL() throws {
        try withTickets { url in
            let error = try refusal(opening: url, with: TicketURL.model)
            guard case let .migrationRefused(_, changes)? = error else {
                Issue.record("expected migrationRefused, got \(String(describing: error))")
                return
            }
            let change = try #require(changes.first)
            #expect(changes.count == 1)
            #expect(change.entity == "Ticket" && change.property == "link" && change.stored == "String" && change.model == "URL")
            #expect(change.fix.contains("MigrationStage") && change.fix.contains("Ticket.link"))
        }
    }

    @Test("a Codable type that gains a required key is refused, naming the values it cannot read; one that gains an optional key migrates")
    func codableShape() throws {
        try withTickets { url in
            let error = try refusal(opening: url, with: TicketPlaceV2.model)
            guard case let .undecodableValues(_, values)? = error else {
                Issue.record("expected undecodableValues, got \(String(describing: error))")
                return
            }
            #expect(values.count == 3)
            #expect(values.first?.property == "place" && values.first?.storedValue == #"{"city":"c1"}"#)
            #expect(values.first?.reason.contains("country") == true)
            try SQLiteFixture.withViewContext(at: url, model: TicketPlaceOptional.model) { context in
                let places = try context.fetch(FetchRequest<TicketPlaceOptional.Ticket>(sortBy: [SortDescriptor(\.title)])).map(\.place)
                #expect(places == [1, 2, 3].map { TicketPlaceOptional.Place(city: "c\($0)", country: nil) })
            }
        }
    }
}
