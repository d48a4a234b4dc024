import Dispatch
import Foundation
@testable import ObjectGraph
import Testing

/// `close()` promises that the container stops counting as a reader of the history, so that it
/// no longer holds trimming back. A record of its progress may be under way on the feed's queue
/// when another thread closes it: that record must not list the container again afterwards.
@Suite("Concurrency: a change feed closed while it records its progress")
struct ConcurrencyChangeFeedCloseTests {
    @Test("close() racing a record of the container's progress: once close() returns, the container is not listed as a reader")
    func closeRacingARecord() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("close-race.sqlite")
            let writer = try historyContainer(at: url)
            try ForeignWriteTriggerTests.saveCards(["a"], in: writer)
            for round in 0..<40 {
                let reader = try historyContainer(at: url)
                let feed = try #require(reader.coordinator.feed)
                let go = DispatchSemaphore(value: 0), recorded = DispatchSemaphore(value: 0)
                DispatchQueue.global().async {
                    go.wait()
                    feed.recordProgressNow()
                    recorded.signal()
                }
                go.signal()
                if round.isMultiple(of: 2) { Thread.sleep(forTimeInterval: 0.000_2 * Double(round % 7)) }
                reader.close()
                let listedAtClose = try writer.history.readers().contains { $0.name == feed.readerName }
                recorded.wait()
                let listedLater = try writer.history.readers().contains { $0.name == feed.readerName }
                #expect(!listedAtClose, "round \(round): still a reader when close() returned")
                #expect(!listedLater, "round \(round): listed again by a record that was under way")
            }
            writer.close()
        }
    }
}
