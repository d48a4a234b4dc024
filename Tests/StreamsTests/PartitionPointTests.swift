import Streams
import Testing

/// The one binary search in the package, on every small case: every length, every place the
/// prefix can end, ranges that do not start at zero.
@Suite("partitionPoint")
struct PartitionPointTests {
    @Test("finds where the prefix ends for every length up to 40 and every split, asking only inside the range and about log2(n) times")
    func everySmallCase() {
        for start in [0, 5, -3] {
            for count in 0...40 {
                let range = start..<(start + count)
                for split in range.lowerBound...range.upperBound {
                    var asked: [Int] = []
                    let point = partitionPoint(in: range) { position in
                        asked.append(position)
                        return position < split
                    }
                    #expect(point == split, "range \(range), split \(split)")
                    #expect(asked.allSatisfy(range.contains), "range \(range), split \(split): asked \(asked)")
                    let bound = count == 0 ? 0 : Int.bitWidth - (count).leadingZeroBitCount
                    #expect(asked.count <= bound, "range \(range), split \(split): \(asked.count) questions")
                }
            }
        }
    }

    @Test("on sorted values with repeats: first place of a value with <, last place with <=")
    func lowerAndUpperBounds() {
        let sorted = [1, 3, 3, 3, 7, 9, 9]
        for value in 0...10 {
            let lower = partitionPoint(in: sorted.indices) { sorted[$0] < value }
            let upper = partitionPoint(in: sorted.indices) { sorted[$0] <= value }
            #expect(lower == sorted.firstIndex { $0 >= value } ?? sorted.count, "lower bound of \(value)")
            #expect(upper == sorted.firstIndex { $0 > value } ?? sorted.count, "upper bound of \(value)")
        }
    }

    @Test("a throwing question stops the search and passes its error on")
    func passesErrorsOn() {
        #expect(throws: TestError.boom) {
            try partitionPoint(in: 0..<10) { _ in throw TestError.boom }
        }
    }
}
