import Foundation
@testable import ObjectGraph
import Testing

@Suite("predicate translator")
struct PredicateTranslatorTests {
    @Test("scratch")
    func scratch() {
        let x = "x"
        let preds: [Predicate<Content>] = [
            #Predicate { $0.name == x },
            #Predicate { $0.rank < 5 && $0.isEven },
            #Predicate { $0.bucket?.name == "A" },
            #Predicate { $0.bucket!.name == "A" && $0.rank > 2 },
            #Predicate { $0.tags.contains { $0.title == "t" } },
            #Predicate { $0.tags.isEmpty },
            #Predicate { ["a", "b"].contains($0.name) },
            #Predicate { (1...5).contains($0.rank) },
            #Predicate { $0.name.contains("ab") || $0.name.starts(with: "c") },
            #Predicate { $0.bucket == nil },
            #Predicate { $0 is ImageContent },
        ]
        for p in preds { let r = translatedSQL(p); print(r.sql ?? "nil", r.bindings, r.translated.isExact, r.translated.inMemoryParts) }
        let preds2: [Predicate<AllTypes>] = [
            #Predicate { $0.double < 5 },
            #Predicate { $0.double == 0 },
            #Predicate { $0.optionalDouble == 2 },
            #Predicate { $0.optionalInt.flatMap { $0 > 3 } == true },
            #Predicate { ($0.optionalString ?? "") == "q" },
            #Predicate { $0.optionalString != nil },
        ]
        for p in preds2 { let r = translatedSQL(p); print(r.sql ?? "nil", r.bindings, r.translated.isExact, r.translated.inMemoryParts) }
    }
}
