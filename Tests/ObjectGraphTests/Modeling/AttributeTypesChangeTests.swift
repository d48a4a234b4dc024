import Foundation
import ObjectGraph
import Streams
import StreamsTesting
import Testing

/// Records the object changes a controller of orders reports.
private final class OrderChanges: FetchedResultsControllerDelegate {
    private(set) var changes: [(objectID: ObjectID, type: ResultsChangeType)] = []

    func controller(_ controller: FetchedResultsController<Order>, didChange object: Order, at indexPath: IndexPath?, for type: ResultsChangeType, newIndexPath: IndexPath?) {
        changes.append((object.objectID!, type))
    }
}

@Suite("attribute types: change tracking, merges and live results")
struct AttributeTypesChangeTests {
    /// A saved order with a shipping address whose labels are a set, in a view context.
    private func savedOrder(_ flavor: StoreFlavor) throws -> (PersistentContainer, ObjectID) {
        let container = try flavor.makeContainer(model: AttributeTypesModel.model)
        let view = container.viewContext
        let id = try view.performAndWait {
            let order = Order(context: view)
            order.shipping = Address(street: "Main 1", city: "Basel", labels: ["a", "b", "c", "d", "e", "f"], geo: Geo(latitude: 1, longitude: 2))
            order.tags = ["x", "y"]
            order.codes = [5, 1, 9, 3]
            order.total = Decimal(string: "10.50")!
            order.link = URL(string: "https://example.com/a")!
            order.status = .placed
            try view.save()
            return order.objectID!
        }
        return (container, id)
    }

    @Test("setting a Codable, collection, enum, URL or Decimal value equal to the current one is no change", arguments: StoreFlavor.allCases)
    func equalValueIsNoChange(flavor: StoreFlavor) throws {
        let (container, id) = try savedOrder(flavor)
        let view = container.viewContext
        view.performAndWait {
            let order = view.required(id, as: Order.self)
            // Equal values built afresh: a set in another insertion order, 10.5 written as 10.500.
            order.shipping = Address(street: "Main 1", city: "Basel", labels: ["f", "e", "d", "c", "b", "a"], geo: Geo(latitude: 1, longitude: 2))
            order.tags = ["x", "y"]
            order.codes = [9, 3, 1, 5]
            order.total = Decimal(string: "10.500")!
            order.link = URL(string: "https://example.com/a")!
            order.status = .placed
            #expect(!order.hasChanges)
            #expect(!view.hasChanges)
            #expect(order.changedValues().isEmpty)
        }
    }

    @Test("a different value is a change; setting the saved value back leaves none", arguments: StoreFlavor.allCases)
    func differentValueIsAChange(flavor: StoreFlavor) throws {
        let (container, id) = try savedOrder(flavor)
        let view = container.viewContext
        view.performAndWait {
            let order = view.required(id, as: Order.self)
            order.shipping.labels.insert("g")
            #expect(order.hasChanges)
            #expect(Set(order.changedValues().keys) == ["shipping"])
            order.shipping.labels.remove("g")
            #expect(!order.hasChanges)

            order.tags = ["y", "x"]  // an array's order is part of its value
            order.total = Decimal(string: "10.51")!
            order.status = .shipped
            #expect(Set(order.changedValues().keys) == ["tags", "total", "status"])
            order.tags = ["x", "y"]
            order.total = 10.5
            order.status = .placed
            #expect(!order.hasChanges)
        }
    }

    @Test("a sibling context's save of converted attributes reaches the other context", arguments: StoreFlavor.allCases)
    func mergesCarryConvertedValues(flavor: StoreFlavor) throws {
        let (container, id) = try savedOrder(flavor)
        let view = container.viewContext
        let background = container.newBackgroundContext()
        view.performAndWait { _ = view.required(id, as: Order.self).shipping }
        let newShipping = Address(street: "Side 2", city: "Genève", labels: ["new"], geo: nil)
        try background.performAndWait {
            let order = background.required(id, as: Order.self)
            order.shipping = newShipping
            order.status = .delivered
            order.priority = .urgent
            order.total = Decimal(string: "-0.000001")!
            order.homepage = URL(string: "https://example.com/ü%20x")!
            order.history = [.draft, .delivered]
            order.moods = [.grumpy]
            try background.save()
        }
        view.flush()
        view.performAndWait {
            let order = view.required(id, as: Order.self)
            #expect(order.shipping == newShipping)
            #expect(order.status == .delivered && order.priority == .urgent)
            #expect(order.total == Decimal(string: "-0.000001")!)
            #expect(order.homepage == URL(string: "https://example.com/ü%20x")!)
            #expect(order.history == [.draft, .delivered] && order.moods == [.grumpy])
            #expect(!order.hasChanges)
        }
    }

    @Test("a fetched-results controller reports an update of an enum or Codable attribute, and moves an object whose sort key changed", arguments: StoreFlavor.allCases)
    func liveResultsShowUpdates(flavor: StoreFlavor) throws {
        let container = try flavor.makeContainer(model: AttributeTypesModel.model)
        let view = container.viewContext
        let background = container.newBackgroundContext()
        let ids = try view.performAndWait {
            let orders = (1...3).map { number in
                let order = Order(context: view)
                order.number = number
                order.total = Decimal(number)
                order.status = .placed
                return order
            }
            try view.save()
            return orders.map { $0.objectID! }
        }
        let recorder = OrderChanges()
        let delivered = OrderStatus.delivered
        let controller = try view.performAndWait {
            let controller = try FetchedResultsController(
                fetchRequest: FetchRequest<Order>(predicate: #Predicate { $0.status != delivered }, sortBy: [SortDescriptor(\.total)]), context: view)
            controller.delegate = recorder
            try controller.performFetch()
            return controller
        }
        try background.performAndWait {
            background.required(ids[0], as: Order.self).shipping = Address(street: "Elm 3", city: "Bern")
            background.required(ids[1], as: Order.self).total = Decimal(string: "99.99")!
            background.required(ids[2], as: Order.self).status = .delivered
            try background.save()
        }
        view.flush()
        view.performAndWait {
            #expect(controller.fetchedObjects.map(\.objectID) == [ids[0], ids[1]])
            #expect(controller.fetchedObjects[0].shipping.city == "Bern")
            #expect(controller.fetchedObjects[1].total == Decimal(string: "99.99")!)
        }
        let changes = view.performAndWait { recorder.changes }
        #expect(changes.contains { $0.objectID == ids[0] && $0.type == .update })
        #expect(changes.contains { $0.objectID == ids[2] && $0.type == .delete })
        #expect(changes.contains { $0.objectID == ids[1] && ($0.type == .update || $0.type == .move) })
        withExtendedLifetime(controller) {}
    }

    @Test("a changes publisher delivers an updated Codable value as a removal and insertion at the same offset", arguments: StoreFlavor.allCases)
    func changesPublisherShowsUpdates(flavor: StoreFlavor) throws {
        let (container, id) = try savedOrder(flavor)
        let view = container.viewContext
        let subscriber = TestSubscriber<CollectionDifference<Order>, ObjectGraphError>()
        let placed = OrderStatus.placed
        view.changesPublisher(for: FetchRequest<Order>(predicate: #Predicate { $0.status == placed })).subscribe(subscriber)
        view.performAndWait { subscriber.request(.unlimited) }
        let background = container.newBackgroundContext()
        try background.performAndWait {
            background.required(id, as: Order.self).lines = [Line(sku: "Z", quantity: 1)]
            try background.save()
        }
        view.flush()
        let values = subscriber.values
        #expect(values.count == 2)
        guard values.count == 2 else { return }
        #expect(values[0].insertions.count == 1)
        let update = values[1]
        #expect(update.removals.map(\.offset) == [0] && update.insertions.map(\.offset) == [0])
        view.performAndWait {
            #expect(update.insertions.first.map { change -> [Line] in
                guard case .insert(_, let order, _) = change else { return [] }
                return order.lines
            } == [Line(sku: "Z", quantity: 1)])
        }
    }
}
