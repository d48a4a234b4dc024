/// Which live observers a changed object concerns, so that a batch of changes costs each
/// observer only the objects that concern it, whatever the number of observers.
///
/// Three ways lead from a changed object to an observer, each a dictionary lookup:
/// - the observer *scans* the object's entity (it sees every changed object of it);
/// - the observer *holds* the object (its results contain it): the object may leave them;
/// - the object's value of a property the observer looks up by value is one of the observer's
///   values (``CandidateLookup``): it may enter them.
///
/// Pure state, no locks and no callbacks (``LiveObserverIndex`` adds both). Observers are named
/// by tokens; routes list them in token order, the order they were added in.
struct ObserverRoutingTable {
    /// One observer's share of a batch: the changed objects that concern it, by kind, in the
    /// batch's order.
    struct Route {
        let token: Int
        var inserted: [ManagedObject] = []
        var updated: [ManagedObject] = []
        var refreshed: [ManagedObject] = []
        var deleted: [ManagedObject] = []

        var count: Int { inserted.count + updated.count + refreshed.count + deleted.count }
    }

    /// A value of one property of one concrete entity, under which lookups file observers.
    private struct ValueKey: Hashable {
        let entityName: String
        let slot: Int
        let value: PropertyValue
    }

    private var interests: [Int: ObserverInterest] = [:]
    private var scanners: [String: [Int]] = [:]
    /// For each concrete entity, the slots some lookup reads, with how many lookups read each.
    private var lookupSlots: [String: [Int: Int]] = [:]
    private var byValue: [ValueKey: [Int]] = [:]
    private var holders: [ObjectID: [Int]] = [:]
    private var held: [Int: Set<ObjectID>] = [:]
    private var followers: [String: Int] = [:]

    /// The number of observers.
    var count: Int { interests.count }

    /// The entities some observer follows.
    var entityNames: Set<String> { Set(followers.keys) }

    mutating func add(_ token: Int, _ interest: ObserverInterest) {
        interests[token] = interest
        for name in interest.entityNames { followers[name, default: 0] += 1 }
        for name in interest.scannedEntityNames { scanners[name, default: []].append(token) }
        for lookup in interest.lookups {
            lookupSlots[lookup.entityName, default: [:]][lookup.slot, default: 0] += 1
            for value in lookup.values {
                byValue[ValueKey(entityName: lookup.entityName, slot: lookup.slot, value: value), default: []].append(token)
            }
        }
    }

    mutating func remove(_ token: Int) {
        guard let interest = interests.removeValue(forKey: token) else { return }
        for name in interest.entityNames { Self.decrement(&followers, name) }
        for name in interest.scannedEntityNames { Self.remove(token, from: &scanners, at: name) }
        for lookup in interest.lookups {
            var slots = lookupSlots[lookup.entityName] ?? [:]
            Self.decrement(&slots, lookup.slot)
            lookupSlots[lookup.entityName] = slots.isEmpty ? nil : slots
            for value in lookup.values {
                Self.remove(token, from: &byValue, at: ValueKey(entityName: lookup.entityName, slot: lookup.slot, value: value))
            }
        }
        for id in held.removeValue(forKey: token) ?? [] { Self.remove(token, from: &holders, at: id) }
    }

    /// Records that observer `token` now holds the objects `taken` and no longer holds `released`.
    mutating func hold(_ taken: some Sequence<ObjectID>, release released: some Sequence<ObjectID>, by token: Int) {
        guard interests[token]?.followsHeldObjects == true else { return }
        var ids = held.removeValue(forKey: token) ?? []
        for id in released where ids.remove(id) != nil { Self.remove(token, from: &holders, at: id) }
        for id in taken where ids.insert(id).inserted { holders[id, default: []].append(token) }
        held[token] = ids
    }

    /// Observer `token` holds exactly `ids` from now on.
    mutating func replaceHoldings(with ids: some Sequence<ObjectID>, by token: Int) {
        let previous = held[token] ?? []
        hold(ids, release: previous, by: token)
    }

    /// The routes of a batch, one per concerned observer, in token order.
    func routes(for change: ObjectsDidChange) -> [Route] {
        var routes: [Route] = []
        var routeIndex: [Int: Int] = [:]
        var tokens: [Int] = []
        func distribute(_ objects: [ManagedObject], lookingUpValues: Bool, into kind: WritableKeyPath<Route, [ManagedObject]>) {
            for object in objects {
                tokens.removeAll(keepingCapacity: true)
                observers(of: object, lookingUpValues: lookingUpValues, into: &tokens)
                for token in tokens {
                    let index: Int
                    if let existing = routeIndex[token] {
                        index = existing
                    } else {
                        index = routes.count
                        routeIndex[token] = index
                        routes.append(Route(token: token))
                    }
                    routes[index][keyPath: kind].append(object)
                }
            }
        }
        distribute(change.inserted, lookingUpValues: true, into: \.inserted)
        distribute(change.updated, lookingUpValues: true, into: \.updated)
        distribute(change.refreshed, lookingUpValues: true, into: \.refreshed)
        // A deleted object concerns only who scans or holds it: it can enter no results.
        distribute(change.deleted, lookingUpValues: false, into: \.deleted)
        return routes.sorted { $0.token < $1.token }
    }

    /// One route per observer, in token order, each with the whole batch: for a change that
    /// does not list everything that changed.
    func everyObserver(for change: ObjectsDidChange) -> [Route] {
        interests.keys.sorted().map {
            Route(token: $0, inserted: change.inserted, updated: change.updated, refreshed: change.refreshed, deleted: change.deleted)
        }
    }

    /// Appends each observer `object` concerns to `tokens`, once.
    private func observers(of object: ManagedObject, lookingUpValues: Bool, into tokens: inout [Int]) {
        guard let id = object.objectID else { return }
        let name = id.entity.name
        // Scanners are listed once per entity; the other two may repeat one.
        if let scanning = scanners[name] { tokens.append(contentsOf: scanning) }
        func add(_ found: [Int]?) {
            for token in found ?? [] where !tokens.contains(token) { tokens.append(token) }
        }
        if !holders.isEmpty { add(holders[id]) }
        guard lookingUpValues, let slots = lookupSlots[name] else { return }
        let values = object.slots
        for slot in slots.keys where slot < values.count {
            guard let key = values[slot].lookupKey else { continue }
            add(byValue[ValueKey(entityName: name, slot: slot, value: key)])
        }
    }

    /// Whether a stored row of an object the context does not hold may concern some observer:
    /// whether a merge must bring it in.
    func mayConcern(_ row: StoredRow) -> Bool {
        let name = row.id.entity.name
        if scanners[name] != nil { return true }
        guard let slots = lookupSlots[name] else { return false }
        for slot in slots.keys where slot < row.slots.count {
            guard let key = row.slots[slot].lookupKey else { continue }
            if byValue[ValueKey(entityName: name, slot: slot, value: key)] != nil { return true }
        }
        return false
    }

    private static func decrement<Key: Hashable>(_ counts: inout [Key: Int], _ key: Key) {
        let left = (counts[key] ?? 1) - 1
        counts[key] = left > 0 ? left : nil
    }

    private static func remove<Key: Hashable>(_ token: Int, from lists: inout [Key: [Int]], at key: Key) {
        lists[key]?.removeAll { $0 == token }
        if lists[key]?.isEmpty == true { lists[key] = nil }
    }
}
