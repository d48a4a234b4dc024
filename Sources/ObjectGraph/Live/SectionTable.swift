/// The sections of a sorted result as runs of equal section names: a name and a count per
/// section. Operations cost O(number of sections), never O(number of objects).
struct SectionTable: Equatable {
    private(set) var names: [String] = []
    private(set) var counts: [Int] = []

    init() {}

    /// Builds the table from the section names of a sorted result.
    init<S: Sequence<String>>(sortedNames: S) {
        for name in sortedNames {
            if names.last == name { counts[counts.count - 1] += 1 } else {
                names.append(name)
                counts.append(1)
            }
        }
    }

    var isEmpty: Bool { names.isEmpty }

    /// The (section, item) of a flat index.
    func position(ofFlatIndex flat: Int) -> (section: Int, item: Int) {
        var remaining = flat
        for (section, count) in counts.enumerated() {
            if remaining < count { return (section, remaining) }
            remaining -= count
        }
        return (max(counts.count - 1, 0), remaining)
    }

    /// The flat index of the first item of `section`.
    func start(ofSection section: Int) -> Int {
        counts.prefix(section).reduce(0, +)
    }

    /// Removes the item at `flat`; returns the section's old index if the section became empty.
    mutating func removeItem(atFlatIndex flat: Int) -> Int? {
        let (section, _) = position(ofFlatIndex: flat)
        counts[section] -= 1
        guard counts[section] == 0 else { return nil }
        names.remove(at: section)
        counts.remove(at: section)
        return section
    }

    /// Adds an item named `name` at `flat`, given the section names of its new neighbours;
    /// returns whether a section was created.
    @discardableResult
    mutating func insertItem(atFlatIndex flat: Int, name: String, previousName: String?, nextName: String?) -> Bool {
        if let previousName, previousName == name {
            counts[position(ofFlatIndex: flat - 1).section] += 1
            return false
        }
        if let nextName, nextName == name {
            counts[position(ofFlatIndex: flat).section] += 1
            return false
        }
        // A new section, after the section of the previous item (or first).
        let section = previousName == nil ? 0 : position(ofFlatIndex: flat - 1).section + 1
        if let previousName, let nextName, previousName == nextName {
            // Splits the run previousName|nextName: the item lands inside another section.
            let (previousSection, previousItem) = position(ofFlatIndex: flat - 1)
            let tail = counts[previousSection] - previousItem - 1
            counts[previousSection] = previousItem + 1
            names.insert(nextName, at: previousSection + 1)
            counts.insert(tail, at: previousSection + 1)
            names.insert(name, at: previousSection + 1)
            counts.insert(1, at: previousSection + 1)
            return true
        }
        names.insert(name, at: section)
        counts.insert(1, at: section)
        return true
    }

    func index(ofName name: String) -> Int? { names.firstIndex(of: name) }
}
