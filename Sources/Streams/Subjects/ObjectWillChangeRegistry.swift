/// The `objectWillChange` publishers of observable objects that have no `@Published`
/// property: one per object, for as long as the object lives.
///
/// Such an object has nowhere to keep its publisher (Combine keeps it as an associated object),
/// so it is kept here, keyed by the object's identity. The object is held weakly: an entry
/// whose object has gone is replaced when its identifier is reused, and entries of dead objects
/// are swept whenever the table has doubled since the last sweep, so the table stays in
/// proportion to the live objects that asked for a publisher.
enum ObjectWillChangeRegistry {
    private struct Entry {
        weak var object: AnyObject?
        let publisher: ObservableObjectPublisher
    }

    private struct Table {
        var entries: [ObjectIdentifier: Entry] = [:]
        var countAfterLastSweep = 0
    }

    // `lock` protects `table`.
    private static let lock = Lock()
    nonisolated(unsafe) private static var table = Table()

    /// The publisher of `object`, made on first use.
    static func publisher(for object: AnyObject) -> ObservableObjectPublisher {
        let key = ObjectIdentifier(object)
        var swept: [ObjectIdentifier: Entry] = [:]
        lock.lock()
        if let entry = table.entries[key], entry.object === object {
            lock.unlock()
            return entry.publisher
        }
        if table.entries.count >= max(64, 2 * table.countAfterLastSweep) {
            // Dead objects' publishers are released below, outside the lock: their subscribers'
            // closures may run user code when they go.
            swept = table.entries
            table.entries = swept.filter { $0.value.object != nil }
            table.countAfterLastSweep = table.entries.count
        }
        let publisher = ObservableObjectPublisher()
        let replaced = table.entries.updateValue(Entry(object: object, publisher: publisher), forKey: key)
        lock.unlock()
        withExtendedLifetime((swept, replaced)) {}
        return publisher
    }
}
