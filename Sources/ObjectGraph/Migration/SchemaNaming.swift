/// How a new file names its columns and join tables: the rules of the first release, kept so
/// that a file it wrote and a file written now for the same model are laid out alike.
enum SchemaNaming {
    /// One entity as the naming rules see it: its hierarchy, and every property (inherited ones
    /// first) with the entity that declares it and whether it has a column.
    struct EntityLayout {
        let name: String
        let root: String
        let properties: [(declaring: String, name: String, hasColumn: Bool)]
    }

    /// The column of each property (keyed `Declaring.property`). Columns are named after their
    /// properties; SQLite compares column names without case, so a clash within a table gets a
    /// numeric suffix, in the order of `entities` and their properties.
    static func columns(of entities: [EntityLayout]) -> [String: String] {
        var taken: [String: Set<String>] = [:]
        var names: [String: String] = [:]
        for entity in entities {
            for property in entity.properties where property.hasColumn {
                let key = property.declaring + "." + property.name
                guard names[key] == nil else { continue }
                var used = taken[entity.root] ?? ["pk", "entity", "version"]
                names[key] = freeName(property.name, in: &used)
                taken[entity.root] = used
            }
        }
        return names
    }

    /// `base`, or `base_2`, `base_3`… if taken (without case); the name is added to `taken`.
    static func freeName(_ base: String, in taken: inout Set<String>) -> String {
        var name = base
        var suffix = 2
        while taken.contains(name.lowercased()) {
            name = "\(base)_\(suffix)"
            suffix += 1
        }
        taken.insert(name.lowercased())
        return name
    }

    /// The table that keeps the order of the ordered to-many `key` (`Declaring.property`):
    /// `Declaring.property[order]`; no other name holds a `[`.
    static func orderTable(of key: String) -> String {
        key + "[order]"
    }

    /// The join table of a to-many relationship `own` (`Declaring.property`) whose to-many
    /// inverse, if any, is `other`: named after both sides in name order, or after `own`
    /// alone. The first side's objects are in `owner`, the second's in `target`.
    static func joinTable(own: String, other: String?) -> (table: String, column: String) {
        guard let other, other != own else { return (own, "owner") }
        return own < other ? (own + "-" + other, "owner") : (other + "-" + own, "target")
    }
}
