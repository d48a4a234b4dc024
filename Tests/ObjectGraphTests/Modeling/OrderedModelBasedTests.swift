import Foundation
@testable import ObjectGraph
import Testing

/// Random appends, inserts, moves, removals and deletes on ordered relationships in two
/// contexts, one at a time (checked against a reference of plain arrays) or both at once (both
/// edit, then both save; checked for consistency: each context equals a fresh fetch, and each
/// track is in the array its to-one names), after every step. Seeds:
/// `OBJECTGRAPH_ORDERED_SEEDS` (the failing seed is printed).
@Suite("ordered to-many relationships: model-based, two contexts")
struct OrderedModelBasedTests {
    static let seeds = Int(ProcessInfo.processInfo.environment["OBJECTGRAPH_ORDERED_SEEDS"] ?? "") ?? 6
    static let steps = 30

    /// The order of every playlist, by name, as titles.
    typealias Orders = [String: [String]]

    static func orders(in context: ManagedObjectContext) throws -> Orders {
        try context.performAndWait {
            var orders: Orders = [:]
            for playlist in try context.fetch(FetchRequest<Playlist>()) { orders[playlist.name] = playlist.tracks.map(\.title) }
            return orders
        }
    }

    /// One random edit in `context`; applies it to `reference` too.
    static func edit(_ context: ManagedObjectContext, reference: inout Orders, counter: inout Int, using generator: inout SeededGenerator) throws {
        try context.performAndWait {
            let playlists = try context.fetch(FetchRequest<Playlist>(sortBy: [SortDescriptor(\.name)]))
            let playlist = playlists.randomElement(using: &generator)!
            let count = playlist.tracks.count
            switch Int.random(in: 0..<6, using: &generator) {
            case 0, 1:  // insert a new track anywhere
                counter += 1
                let track = Track(context: context)
                track.title = "t\(counter)"
                let index = Int.random(in: 0...count, using: &generator)
                playlist.tracks.insert(track, at: index)
                reference[playlist.name]!.insert(track.title, at: index)
            case 2 where count > 1:  // move within
                let from = Int.random(in: 0..<count, using: &generator)
                let to = Int.random(in: 0..<count, using: &generator)
                playlist.tracks.insert(playlist.tracks.remove(at: from), at: to)
                reference[playlist.name]!.insert(reference[playlist.name]!.remove(at: from), at: to)
            case 3 where count > 0:  // move to another playlist's end, through the to-one
                let track = playlist.tracks.randomElement(using: &generator)!
                let other = playlists.randomElement(using: &generator)!
                guard other !== playlist else { break }  // the same owner again: no change
                track.playlist = other
                reference[playlist.name]!.removeAll { $0 == track.title }
                reference[other.name]!.removeAll { $0 == track.title }
                reference[other.name]!.append(track.title)
            case 4 where count > 0:  // remove from the array
                let index = Int.random(in: 0..<count, using: &generator)
                playlist.tracks.remove(at: index)
                reference[playlist.name]!.remove(at: index)
            case 5 where count > 0:  // delete a member
                let track = playlist.tracks.randomElement(using: &generator)!
                context.delete(track)
                reference[playlist.name]!.removeAll { $0 == track.title }
            default:
                playlist.tracks.reverse()
                reference[playlist.name]!.reverse()
            }
        }
    }

    /// Every context's arrays equal a fresh fetch; each track is in one array at most, and its
    /// to-one points at that one.
    static func checkConsistency(_ contexts: [ManagedObjectContext], container: PersistentContainer, seed: UInt64, step: Int) throws -> Orders {
        let fresh = container.newBackgroundContext(name: "fresh")
        let stored = try orders(in: fresh)
        for context in contexts {
            #expect(try orders(in: context) == stored, "seed \(seed) step \(step): \(context.name) keeps a stale array")
        }
        try fresh.performAndWait {
            var owner: [String: String] = [:]
            for (name, titles) in stored {
                for title in titles {
                    #expect(owner.updateValue(name, forKey: title) == nil, "seed \(seed) step \(step): \(title) in two arrays")
                }
            }
            for track in try fresh.fetch(FetchRequest<Track>()) {
                #expect(track.playlist?.name == owner[track.title], "seed \(seed) step \(step): \(track.title)'s playlist disagrees with the arrays")
            }
        }
        return stored
    }

    @Test("random edits in two contexts: arrays agree with the store after every step, and with a reference while one context edits", arguments: StoreFlavor.allCases)
    func randomEdits(flavor: StoreFlavor) throws {
        for seed in UInt64(1)...UInt64(Self.seeds) {
            var generator = SeededGenerator(seed: seed)
            let container = try flavor.makeContainer(model: OrderedModel.model)
            let contexts = [container.viewContext, container.newBackgroundContext(name: "background")]
            try contexts[0].performAndWait {
                for name in ["p0", "p1", "p2"] { Playlist(context: contexts[0]).name = name }
                try contexts[0].save()
            }
            contexts[1].flush()
            var reference: Orders = ["p0": [], "p1": [], "p2": []]
            var counter = 0
            for step in 0..<Self.steps {
                // Objects are held by the context only while used: keep the playlists alive, so
                // that merges land on objects with loaded arrays.
                let held = try contexts.map { context in try context.performAndWait { try context.fetch(FetchRequest<Playlist>()).map { ($0, $0.tracks) } } }
                let concurrent = Bool.random(using: &generator)
                if concurrent {
                    for context in contexts {
                        var scratch = reference  // each context starts from the stored state
                        try Self.edit(context, reference: &scratch, counter: &counter, using: &generator)
                    }
                    for context in contexts.shuffled(using: &generator) {
                        context.performAndWait {
                            do { try context.save() } catch ObjectGraphError.mergeConflict {
                                context.rollback()  // both moved one track: the later save is refused, as for any to-one
                            } catch {
                                Issue.record("seed \(seed) step \(step): \(error)")
                            }
                        }
                        contexts.forEach { $0.flush() }
                    }
                    reference = try Self.checkConsistency(contexts, container: container, seed: seed, step: step)
                } else {
                    let context = contexts.randomElement(using: &generator)!
                    try Self.edit(context, reference: &reference, counter: &counter, using: &generator)
                    try context.performAndWait { try context.save() }
                    contexts.forEach { $0.flush() }
                    let stored = try Self.checkConsistency(contexts, container: container, seed: seed, step: step)
                    #expect(stored == reference, "seed \(seed) step \(step): the store disagrees with the reference")
                    reference = stored
                }
                withExtendedLifetime(held) {}
            }
        }
    }
}
