/// A fetch's statement for one ``FetchShape``, with the parameters that its captured values
/// fill: made from one translation, then filled with the values of each fetch of the shape.
struct PreparedFetch: Sendable {
    /// The statement's text.
    let sql: String
    /// The parameters that hold no captured value (a limit, an offset).
    let fixedBindings: [PropertyValue]
    /// For each parameter, the index of the captured value it holds, or `nil` for a fixed one.
    let valueSlots: [Int?]
    /// The one entity whose rows the statement reads.
    let entity: EntityDescription
    /// Whether the rows come unordered and are put in object-ID order in memory.
    let sortsByIDInMemory: Bool

    /// The statement of `text`, made from the captured `values`, if each of those values is
    /// exactly one of its parameters and no other parameter equals one of them: then the text
    /// holds no trace of a value, and filling the slots gives what a translation would.
    init?(_ text: SQLStatementText, values: [PropertyValue], entity: EntityDescription, sortsByIDInMemory: Bool) {
        var slots: [Int?] = []
        var uses = [Int](repeating: 0, count: values.count)
        slots.reserveCapacity(text.bindings.count)
        for binding in text.bindings {
            let matching = values.indices.filter { values[$0] == binding }
            guard matching.count <= 1 else { return nil }
            if let index = matching.first { uses[index] += 1 }
            slots.append(matching.first)
        }
        guard uses.allSatisfy({ $0 == 1 }) else { return nil }
        sql = text.sql
        fixedBindings = text.bindings
        valueSlots = slots
        self.entity = entity
        self.sortsByIDInMemory = sortsByIDInMemory
    }

    /// The statement with `values` (of the same shape) in their parameters.
    func text(binding values: [PropertyValue]) -> SQLStatementText {
        var bindings = fixedBindings
        for (index, slot) in valueSlots.enumerated() {
            if let slot { bindings[index] = values[slot] }
        }
        return SQLStatementText(sql: sql, bindings: bindings)
    }
}
