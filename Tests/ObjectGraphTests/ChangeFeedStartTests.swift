import Dispatch
import Foundation
@testable import ObjectGraph
import Testing

/// The change feed starts where the container's open read the history, and makes its own
/// connection, pipe and timer afterwards, on its queue: nothing committed in between may be
/// lost, whoever commits it.
@Suite("Change feed start: nothing committed between the open and the feed's first look is lost")
struct ChangeFeedStartTests {
    @Test("another container's save and a plain connection's write right after the open, before any query, reach live results", arguments: [false, true])
    func writesRightAfterOpen(wakes: Bool) throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("start.sqlite")
            // Quiet: the test makes the reader look. Otherwise as shipped: woken by saves, and
            // the safety net's looks find the plain connection's writes, which wake no one.
            var options = ChangeFeedOptions()
            if !wakes {
                options.wakesOtherWriters = false
                options.safetyNetInterval = .seconds(3_600)
            }
            let writer = try historyContainer(at: url, options: options)
            try ForeignWriteTriggerTests.saveCards(["a", "b"], in: writer)
            let raw = try RawDatabase(path: url.path)
            for round in 0..<5 {
                let reader = try historyContainer(at: url, options: options)
                try ForeignWriteTriggerTests.saveCards(["saved \(round)"], in: writer)
                try raw.execute("UPDATE \"Card\" SET rank = rank + 1 WHERE title = 'a'")
                let live = try LiveCards(container: reader)
                try ForeignWriteTriggerTests.saveCards(["after \(round)"], in: writer)
                try raw.execute("UPDATE \"Card\" SET rank = rank + 1 WHERE title = 'b'")
                if !wakes { reader.coordinator.feed?.checkNow() }
                let agrees = try eventually(timeout: 5) { try live.agree(with: reader) }
                let shown = live.shown().controller, file = try live.freshFetch(in: reader)
                #expect(agrees, "round \(round): shown \(shown), file \(file)")
                reader.close()
            }
        }
    }

    @Test("a container closed at once, before its feed started, leaves no pipe and no reader behind")
    func closedBeforeStart() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("closed.sqlite")
            let writer = try historyContainer(at: url)
            try ForeignWriteTriggerTests.saveCards(["a"], in: writer)
            for _ in 0..<20 { try historyContainer(at: url).close() }
            writer.close()
            Thread.sleep(forTimeInterval: 0.2)  // a start already queued runs, finds the feed closed
            let beside = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            #expect(beside.filter { !$0.hasPrefix("closed.sqlite") }.isEmpty, "\(beside)")
        }
    }
}
