import Foundation
import ObjectGraph
import Testing

@Suite("doubles: -0.0 and NaN are tracked bitwise")
struct DoubleChangeTrackingTests {
    @Test("setting -0.0 over 0.0 is a change, and the sign is saved", arguments: StoreFlavor.allCases)
    func negativeZeroIsAChange(flavor: StoreFlavor) throws {
        let container = try CorrectnessModel.container(flavor)
        let view = container.viewContext
        let id = try view.performAndWait {
            let entry = Entry(context: view)
            entry.score = 0.0
            try view.save()
            entry.score = -0.0
            #expect(entry.hasChanges, "-0.0 over 0.0 must be recorded")
            try view.save()
            return entry.objectID!
        }
        let reader = container.newBackgroundContext()
        reader.performAndWait {
            let score = reader.required(id, as: Entry.self).score
            #expect(score == 0 && score.sign == .minus, "the store holds \(score)")
        }
    }

    @Test("writing the same NaN again is not a change", arguments: StoreFlavor.allCases)
    func sameNaNIsNoChange(flavor: StoreFlavor) throws {
        let container = try CorrectnessModel.container(flavor)
        let view = container.viewContext
        try view.performAndWait {
            let entry = Entry(context: view)
            entry.score = .nan
            try view.save()
            entry.score = .nan
            #expect(!entry.hasChanges && !view.hasChanges, "the same NaN is not a change")
            entry.score = 1
            entry.score = .nan
            #expect(!entry.hasChanges, "setting back to the saved NaN undoes the change")
        }
    }

    @Test(
        "a controller sorted by a Double with NaN, -0.0 and 0.0 keys stays identical to a fresh fetch",
        arguments: StoreFlavor.allCases)
    func nanSortKeys(flavor: StoreFlavor) throws {
        let values: [Double] = [.nan, -0.0, 0.0, 1, -1, .infinity, -.infinity, 2.5]
        let container = try CorrectnessModel.container(flavor)
        let view = container.viewContext
        let requests = [
            FetchRequest<Entry>(sortBy: [SortDescriptor(\.score)]),
            FetchRequest<Entry>(sortBy: [SortDescriptor(\.score, order: .reverse)]),
        ]
        try view.performAndWait {
            let controllers = try requests.map { request in
                let controller = try FetchedResultsController(fetchRequest: request, context: view)
                try controller.performFetch()
                return controller
            }
            var generator = SeededGenerator(seed: 8)
            var entries: [Entry] = []
            for step in 0..<200 {
                if entries.count < 12 || Bool.random(using: &generator) {
                    let entry = Entry(context: view)
                    entry.score = values.randomElement(using: &generator)!
                    entries.append(entry)
                } else {
                    entries.randomElement(using: &generator)!.score = values.randomElement(using: &generator)!
                }
                if step % 3 == 0 { try view.save() } else { view.processPendingChanges() }
                for (request, controller) in zip(requests, controllers) {
                    let fetched = try view.fetch(request)
                    #expect(controller.fetchedObjects == fetched, "step \(step): \(controller.fetchedObjects.map(\.score)) vs \(fetched.map(\.score))")
                    // NaN last going forward (first in reverse); -0.0 and 0.0 tie, broken by ID.
                    let scores = fetched.map(\.score)
                    let nanPositions = scores.indices.filter { scores[$0].isNaN }
                    let expected = request.sortDescriptors[0].order == .forward
                        ? Array((scores.count - nanPositions.count)..<scores.count) : Array(0..<nanPositions.count)
                    #expect(nanPositions == expected, "step \(step): \(scores)")
                }
            }
        }
    }
}
