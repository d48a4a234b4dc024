import Foundation
import ObjectGraph
import Testing

// The model and the code that Docs/Modeling.md shows, kept here so that they compile and run.
// Edit both together.

// MARK: The model (Docs/Modeling.md, "A model")

enum PurchaseState: String, Codable, CaseIterable, Sendable {
    case open, paid, shipped, cancelled
}

enum Urgency: Int, Codable, CaseIterable, Comparable, Sendable {
    case low = 0, normal = 1, high = 2

    static func < (lhs: Urgency, rhs: Urgency) -> Bool { lhs.rawValue < rhs.rawValue }
}

struct PostalAddress: Codable, Hashable, Sendable {
    var street: String
    var city: String
    var country: String? = nil
}

final class Shopper: ManagedObject {
    @Attribute(.unique) var email: String = ""
    @Attribute(validation: .notEmpty) var name: String = "?"
    @Attribute var homepage: URL? = nil
    @Relationship(inverse: "shopper", deleteRule: .deny) var purchases: Set<Purchase>
}

final class Purchase: ManagedObject, IndexedEntity {
    @Attribute(.indexed) var state: PurchaseState = .open
    @Attribute var urgency: Urgency = .normal
    @Attribute(validation: .atLeast(0)) var total: Decimal = 0
    @Attribute var receipt: URL? = nil
    @Attribute var shipTo = PostalAddress(street: "", city: "")
    @Attribute var tags: Set<String> = []
    @Relationship(inverse: "purchases") var shopper: Shopper?
    @Relationship(inverse: "purchase", deleteRule: .cascade) var items: Set<PurchaseItem>

    static let indexes: [EntityIndex] = [.index(\Purchase.state, \Purchase.total)]

    override func validate() throws {
        if state == .shipped, shopper == nil {
            throw ValidationError("a shipped purchase needs a shopper", property: "shopper")
        }
    }
}

final class PurchaseItem: ManagedObject {
    @Attribute var sku: String = ""
    @Attribute(validation: .range(1...99)) var quantity: Int = 1
    @Relationship(inverse: "items") var purchase: Purchase?
}

enum ShopModel {
    static let model = try! ObjectModel(entities: [Shopper.self, Purchase.self, PurchaseItem.self])
}

// MARK: Queries (Docs/Modeling.md, "Queries on the new types")

/// The paid purchases of at least `urgency` and above `minimum`, most expensive first.
func urgentPaidPurchases(urgency: Urgency, minimum: Decimal) -> FetchRequest<Purchase> {
    let paid = PurchaseState.paid  // #Predicate reads captured values, not `.paid` literals
    return FetchRequest<Purchase>(
        predicate: #Predicate { $0.state == paid && $0.urgency >= urgency && $0.total > minimum },
        sortBy: [SortDescriptor(\.total, order: .reverse)])
}

/// The purchases whose receipt is `receipt`, or that are in one of `states`.
func purchases(in context: ManagedObjectContext, receipt: URL, states: [PurchaseState]) throws -> [Purchase] {
    try context.fetch(FetchRequest<Purchase>(predicate: #Predicate { $0.receipt == receipt || states.contains($0.state) }))
}

// MARK: Errors (Docs/Modeling.md, "Errors")

/// Saves, and says what a failure was about.
func saveExplaining(_ context: ManagedObjectContext) -> String {
    do {
        try context.save()
        return "saved"
    } catch ObjectGraphError.validationFailed(let failures) {
        return failures.map(\.description).joined(separator: "\n")
    } catch ObjectGraphError.deleteDenied(let denials) {
        return denials.map(\.description).joined(separator: "\n")
    } catch ObjectGraphError.undecodableValues(_, let values) {
        return values.map(\.description).joined(separator: "\n")
    } catch {
        return "\(error)"
    }
}

@Suite("the modeling guide's model")
struct ModelingGuideTests {
    @Test("the guide's model stores its new types, runs its queries in SQL, and its rules stop a save", arguments: StoreFlavor.allCases)
    func guideModel(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer(model: ShopModel.model)
        let view = container.viewContext
        try view.performAndWait {
            let ada = Shopper(context: view)
            ada.email = "ada@example.com"
            ada.name = "Ada"
            ada.homepage = URL(string: "https://example.com/ada")!
            let receipt = URL(string: "https://example.com/receipts/1")!
            let totals = ["12.50", "1999.99", "0.01"].map { Decimal(string: $0)! }
            for (index, total) in totals.enumerated() {
                let purchase = Purchase(context: view)
                purchase.shopper = ada
                purchase.total = total
                purchase.state = index == 2 ? .open : .paid
                purchase.urgency = index == 0 ? .normal : .high
                purchase.receipt = index == 0 ? receipt : nil
                purchase.shipTo = PostalAddress(street: "Main 1", city: "Zürich")
                purchase.tags = ["gift"]
                let item = PurchaseItem(context: view)
                item.sku = "sku-\(index)"
                item.purchase = purchase
            }
            #expect(saveExplaining(view) == "saved")

            let request = urgentPaidPurchases(urgency: .normal, minimum: 10)
            #expect(try view.fetch(request).map(\.total) == [totals[1], totals[0]])
            if flavor == .sqlite {
                let explanation = try view.explain(request)
                #expect(explanation.predicateInMemory.isEmpty && explanation.sortInSQL, "\(explanation)")
            }
            #expect(try purchases(in: view, receipt: receipt, states: [.open]).map(\.total).sorted() == [totals[2], totals[0]])

            // Rules: a negative total and a shipped purchase without a shopper; then deny.
            let stray = Purchase(context: view)
            stray.total = -1
            stray.state = .shipped
            let failures = saveExplaining(view)
            #expect(failures.contains("total") && failures.contains("a shipped purchase needs a shopper"))
            view.delete(stray)
            view.delete(ada)
            #expect(saveExplaining(view).contains("purchases"))
        }
    }
}
