/// The parts of one agreeing observation, with what each form needs to turn their changes
/// (one `Change` per part, in order, as the feeds make them) into its own values.
struct AgreeingParts<Changes, Currents> {
    /// Starts each part on the context's queue.
    let starts: [(ManagedObjectContext) throws -> any LiveQueryFeed]
    /// The publisher's value: the tuple of the parts' changes.
    let changes: ([Any]) -> Changes
    /// The observable form's values before the first delivery.
    let initial: Currents
    /// How the observable form takes the parts' changes in.
    let update: (inout Currents, [Any]) -> Void

    // Each feed makes its own part's `Change`, so the casts below cannot fail.

    static func of<A: AgreeingQuery, B: AgreeingQuery>(_ a: A, _ b: B) -> AgreeingParts
    where Changes == (A.Change, B.Change), Currents == (A.Current, B.Current) {
        let (a, b) = (a.query, b.query)
        return AgreeingParts(
            starts: [a.start, b.start],
            changes: { ($0[0] as! A.Change, $0[1] as! B.Change) },
            initial: (a.initialCurrent, b.initialCurrent),
            update: { current, changes in
                a.update(&current.0, changes[0] as! A.Change)
                b.update(&current.1, changes[1] as! B.Change)
            })
    }

    static func of<A: AgreeingQuery, B: AgreeingQuery, C: AgreeingQuery>(_ a: A, _ b: B, _ c: C) -> AgreeingParts
    where Changes == (A.Change, B.Change, C.Change), Currents == (A.Current, B.Current, C.Current) {
        let (a, b, c) = (a.query, b.query, c.query)
        return AgreeingParts(
            starts: [a.start, b.start, c.start],
            changes: { ($0[0] as! A.Change, $0[1] as! B.Change, $0[2] as! C.Change) },
            initial: (a.initialCurrent, b.initialCurrent, c.initialCurrent),
            update: { current, changes in
                a.update(&current.0, changes[0] as! A.Change)
                b.update(&current.1, changes[1] as! B.Change)
                c.update(&current.2, changes[2] as! C.Change)
            })
    }

    static func of<A: AgreeingQuery, B: AgreeingQuery, C: AgreeingQuery, D: AgreeingQuery>(_ a: A, _ b: B, _ c: C, _ d: D) -> AgreeingParts
    where Changes == (A.Change, B.Change, C.Change, D.Change), Currents == (A.Current, B.Current, C.Current, D.Current) {
        let (a, b, c, d) = (a.query, b.query, c.query, d.query)
        return AgreeingParts(
            starts: [a.start, b.start, c.start, d.start],
            changes: { ($0[0] as! A.Change, $0[1] as! B.Change, $0[2] as! C.Change, $0[3] as! D.Change) },
            initial: (a.initialCurrent, b.initialCurrent, c.initialCurrent, d.initialCurrent),
            update: { current, changes in
                a.update(&current.0, changes[0] as! A.Change)
                b.update(&current.1, changes[1] as! B.Change)
                c.update(&current.2, changes[2] as! C.Change)
                d.update(&current.3, changes[3] as! D.Change)
            })
    }
}
