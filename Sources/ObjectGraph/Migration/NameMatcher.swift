/// Pairs new names with old ones: by name first, then by the name a new item says it had.
enum NameMatcher {
    struct Item {
        let name: String
        let originalName: String?
    }

    struct Match {
        /// The old name of each matched new item.
        var oldName: [String: String] = [:]
        /// New items matched by name whose original name is an old item left unmatched: the
        /// file may be from before or after the rename.
        var ambiguous: [(item: String, originalName: String)] = []
    }

    static func match(_ items: [Item], old: [String]) -> Match {
        let oldNames = Set(old)
        var match = Match()
        var claimed: Set<String> = []
        for item in items where oldNames.contains(item.name) {
            match.oldName[item.name] = item.name
            claimed.insert(item.name)
        }
        for item in items where match.oldName[item.name] == nil {
            guard let original = item.originalName, oldNames.contains(original), !claimed.contains(original) else { continue }
            match.oldName[item.name] = original
            claimed.insert(original)
        }
        for item in items {
            guard let original = item.originalName, original != item.name, match.oldName[item.name] == item.name,
                  oldNames.contains(original), !claimed.contains(original) else { continue }
            match.ambiguous.append((item.name, original))
        }
        return match
    }
}
