import Foundation

/// The values of one object under one uniqueness constraint, in the form in which both stores
/// decide "equal": Swift's `==` on each value, so that two canonically equivalent strings
/// (`"é"` composed and decomposed) are equal and `-0.0` equals `0.0`.
///
/// There is no key — the object collides with nothing — when a value is `nil` (as in SQL) or a
/// NaN (which Swift's `==` finds equal to nothing).
struct UniqueKey: Hashable {
    let values: [PropertyValue]

    init?(_ constraint: IndexDescription, slots: [PropertyValue]) {
        var values: [PropertyValue] = []
        values.reserveCapacity(constraint.slots.count)
        for slot in constraint.slots {
            guard let value = Self.comparable(slots[slot]) else { return nil }
            values.append(value)
        }
        self.values = values
    }

    /// `value` with the distinctions `==` ignores removed (the sign of zero), or `nil` if it
    /// equals nothing.
    static func comparable(_ value: PropertyValue) -> PropertyValue? {
        switch value {
        case .null: return nil
        case .double(let double):
            if double.isNaN { return nil }
            return double == 0 ? .double(0) : value
        case .date(let date):
            let interval = date.timeIntervalSinceReferenceDate
            if interval.isNaN { return nil }
            return interval == 0 ? .date(Date(timeIntervalSinceReferenceDate: 0)) : value
        default: return value
        }
    }
}
