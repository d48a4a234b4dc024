@testable import ObjectGraph
import Testing

@Suite("Migration plans as data: every small pair of schemas gives the expected operations")
struct MigrationPlanCasesTests {
    @Test("each file schema against each model schema, with and without removals allowed, plans exactly what the rules say, and renders in both dialects")
    func everySmallPair() {
        var planned = 0
        var refused = 0
        for planCase in MigrationPlanCase.all {
            let (actual, step) = planCase.planned()
            let expected = planCase.expectation()
            #expect(actual == expected, "\(planCase.old) → \(planCase.new), removals \(planCase.allowsRemovals ? "allowed" : "refused")")
            guard let step else {
                refused += 1
                continue
            }
            planned += 1
            for dialect in SQLDialect.allCases {
                for operation in step.expand + step.contract {
                    let statements = operation.statements(in: dialect)
                    #expect(!statements.isEmpty && statements.allSatisfy { !$0.isEmpty }, "\(operation) in \(dialect)")
                }
                for check in step.checks { #expect(check.query.sql(in: dialect).hasPrefix("SELECT ")) }
            }
        }
        // The world is small, but not trivial: many pairs plan, many are refused.
        #expect(MigrationPlanCase.all.count == 48 * 72 * 2)
        #expect(planned > 1_000 && refused > 1_000, "\(planned) planned, \(refused) refused")
    }
}
