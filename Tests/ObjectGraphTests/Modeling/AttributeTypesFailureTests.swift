import Foundation
import ObjectGraph
import Testing

/// A `Codable` type whose decoding rejects what its encoding wrote: a value that no store can
/// read back, in memory or in a file.
struct Unreadable: Codable, Equatable, Sendable {
    var text = ""

    init(text: String = "") { self.text = text }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard text.hasPrefix("ok:") else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(text)' does not start with ok:")
        }
        self.text = String(text.dropFirst(3))
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text == "bad" ? text : "ok:" + text)
    }
}

final class Ledger: ManagedObject {
    @Attribute var name: String = ""
    @Attribute var note = Unreadable()
    @Attribute(validation: .atLeast(0)) var balance: Decimal = 0
    @Attribute(validation: .count(0...2)) var owners: [String] = []
    @Attribute(validation: .rule("must be https") { $0.scheme == "https" }) var site = URL(string: "https://example.com")!
    @Attribute(validation: .range(OrderStatus.placed...OrderStatus.delivered)) var status: OrderStatus = .placed
}

@Suite("attribute types: values that cannot be read, batch updates and validation")
struct AttributeTypesFailureTests {
    static let ledgerModel = try! ObjectModel(entities: [Ledger.self])

    /// The values a thrown error lists as unreadable, or `nil` for another error or none.
    private func undecodable(_ body: () throws -> Void) -> [UndecodableValue]? {
        do {
            try body()
            return nil
        } catch ObjectGraphError.undecodableValues(_, let values) {
            return values
        } catch {
            Issue.record("another error: \(error)")
            return nil
        }
    }

    /// A file with orders 1...3 saved by the test model, closed; `change` then edits it in SQL.
    private func corruptedFile(_ change: String, _ body: (URL, [ObjectID]) throws -> Void) throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("orders.sqlite")
            let ids = try SQLiteFixture.withViewContext(at: url, model: AttributeTypesModel.model) { context in
                let orders = (1...3).map { number in
                    let order = Order(context: context)
                    order.number = number
                    order.shipping = Address(street: "s\(number)", city: "c\(number)")
                    return order
                }
                try context.save()
                return orders.map { $0.objectID! }
            }
            try RawDatabase(path: url.path).execute(change)
            try body(url, ids)
        }
    }

    @Test("a fetch that meets a stored enum raw value the type has no case for throws naming entity, property and value; other rows still fetch")
    func unknownEnumCaseOnFetch() throws {
        try corruptedFile(#"UPDATE "Order" SET status = 9 WHERE number = 2"#) { url, ids in
            try SQLiteFixture.withViewContext(at: url, model: AttributeTypesModel.model) { context in
                let values = undecodable { _ = try context.fetch(FetchRequest<Order>()) }
                #expect(values?.count == 1)
                let value = try #require(values?.first)
                #expect(value.entity == "Order" && value.property == "status" && value.storedValue == "9" && value.objectID == ids[1])
                #expect(value.type == "OrderStatus" && value.reason.contains("no case whose raw value is 9"))
                #expect(String(describing: ObjectGraphError.undecodableValues(path: url.path, values: values!)).contains("Order"))
                let two = 2
                #expect(undecodable { _ = try context.fetch(FetchRequest<Order>(predicate: #Predicate { $0.number == two })) }?.count == 1)
                let others = try context.fetch(FetchRequest<Order>(predicate: #Predicate { $0.number != two }, sortBy: [SortDescriptor(\.number)]))
                #expect(others.map(\.number) == [1, 3])
            }
        }
    }

    @Test("looking up an object by ID whose stored enum value the type cannot read throws naming it; other objects save, and the value stays as stored")
    func unknownEnumCaseByID() throws {
        try corruptedFile(#"UPDATE "Order" SET status = 9 WHERE number = 2"#) { url, ids in
            try SQLiteFixture.withViewContext(at: url, model: AttributeTypesModel.model) { context in
                let values = undecodable { _ = try context.existingObject(with: ids[1]) }
                #expect(values?.first?.property == "status" && values?.first?.storedValue == "9" && values?.first?.objectID == ids[1])
                #expect(context.object(with: ids[1]) == nil)
                let first = try #require(context.object(with: ids[0], as: Order.self))
                first.number = 10
                try context.save()
            }
            let raw = try RawDatabase(path: url.path)
            #expect(try raw.rows(#"SELECT number, status FROM "Order" ORDER BY pk"#) == [["10", "1"], ["2", "9"], ["3", "1"]])
        }
    }

    @Test("corrupted JSON is found when the property is read: the next save throws naming it and writes nothing; setting a new value repairs it")
    func corruptedJSON() throws {
        try corruptedFile(#"UPDATE "Order" SET shipping = '{"street": "s2", "ci' WHERE number = 2"#) { url, ids in
            try SQLiteFixture.withViewContext(at: url, model: AttributeTypesModel.model) { context in
                let orders = try context.fetch(FetchRequest<Order>(sortBy: [SortDescriptor(\.number)]))
                #expect(orders[0].shipping.city == "c1")
                _ = orders[1].shipping
                orders[2].number = 30
                let values = undecodable { try context.save() }
                let value = try #require(values?.first)
                #expect(value.entity == "Order" && value.property == "shipping" && value.objectID == ids[1])
                #expect(value.storedValue == #"{"street": "s2", "ci"#)
                #expect(value.type == "Address")
                // The save wrote nothing, and kept the changes to try again.
                #expect(orders[2].hasChanges)
                orders[1].shipping = Address(street: "fixed", city: "again")
                try context.save()
            }
            try SQLiteFixture.withViewContext(at: url, model: AttributeTypesModel.model) { context in
                let orders = try context.fetch(FetchRequest<Order>(sortBy: [SortDescriptor(\.number)]))
                #expect(orders.map(\.number) == [1, 2, 30])
                #expect(orders[1].shipping == Address(street: "fixed", city: "again"))
            }
        }
    }

    @Test("a Codable value whose decoding rejects its own encoding is reported by the next save, in memory and in a file", arguments: StoreFlavor.allCases)
    func unreadableCodable(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer(model: Self.ledgerModel)
        let view = container.viewContext
        try view.performAndWait {
            let ledger = Ledger(context: view)
            ledger.note = Unreadable(text: "fine")
            try view.save()
            #expect(ledger.note == Unreadable(text: "fine"))
            ledger.note = Unreadable(text: "bad")
            #expect(ledger.note == Unreadable())  // what it reads back is the initial value …
            let values = undecodable { try view.save() }  // … and the save says why
            #expect(values?.first?.property == "note" && values?.first?.storedValue == #""bad""#)
            #expect(values?.first?.reason.contains("does not start with ok:") == true)
        }
    }

    @Test("a batch update sets enums, Decimals, URLs and Codable values, and the context's objects follow", arguments: StoreFlavor.allCases)
    func batchUpdate(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer(model: AttributeTypesModel.model)
        let view = container.viewContext
        let address = Address(street: "Batch 1", city: "Chur", labels: ["b", "a"])
        let link = URL(string: "https://example.com/ü x".addingPercentEncoding(withAllowedCharacters: .urlPathAllowed)!)!
        let total = Decimal(string: "-1234567890.0987654321")!
        try view.performAndWait {
            let orders = (1...4).map { number in
                let order = Order(context: view)
                order.number = number
                return order
            }
            try view.save()
            let two = 2
            let result = try view.execute(
                BatchUpdate<Order>(where: #Predicate { $0.number > two }, set: \.status, to: .delivered)
                    .set(\.priority, to: .urgent).set(\.total, to: total).set(\.link, to: link).set(\.shipping, to: address).set(\.tags, to: ["t"]))
            #expect(result.count == 2)
            #expect(orders.map(\.status) == [.draft, .draft, .delivered, .delivered])
            #expect(orders[3].total == total && orders[3].link == link && orders[3].shipping == address && orders[3].tags == ["t"])
            #expect(orders[3].priority == .urgent && orders[0].priority == nil)
            let delivered = OrderStatus.delivered
            #expect(try view.count(for: FetchRequest<Order>(predicate: #Predicate { $0.status == delivered && $0.total == total })) == 2)
        }
        let reader = container.newBackgroundContext()
        try reader.performAndWait { () throws in
            let orders = try reader.fetch(FetchRequest<Order>(sortBy: [SortDescriptor(\.number)]))
            #expect(orders.map(\.status) == [.draft, .draft, .delivered, .delivered])
            #expect(orders[2].shipping == address && orders[2].total == total && orders[2].link == link)
        }
    }

    @Test("validation rules on Decimal, array, URL and enum attributes stop a save and a batch update", arguments: StoreFlavor.allCases)
    func validation(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer(model: Self.ledgerModel)
        let view = container.viewContext
        try view.performAndWait {
            let ledger = Ledger(context: view)
            try view.save()
            ledger.balance = Decimal(string: "-0.01")!
            ledger.owners = ["a", "b", "c"]
            ledger.site = URL(string: "http://example.com")!
            ledger.status = .draft
            do {
                try view.save()
                Issue.record("the save went through")
            } catch ObjectGraphError.validationFailed(let failures) {
                #expect(failures.map(\.property) == ["balance", "owners", "site", "status"])
                #expect(failures.first?.reason.contains("-0.01") == true)
            }
            ledger.balance = 0
            ledger.owners = ["a"]
            ledger.site = URL(string: "https://example.org")!
            ledger.status = .shipped
            try view.save()
            #expect(throws: ObjectGraphError.self) { try view.execute(BatchUpdate<Ledger>(set: \.balance, to: Decimal(-1))) }
            #expect(throws: ObjectGraphError.self) { try view.execute(BatchUpdate<Ledger>(set: \.status, to: .draft)) }
            try view.execute(BatchUpdate<Ledger>(set: \.status, to: .delivered))
            #expect(ledger.status == .delivered)
        }
    }
}
