import Benchmark
import Dispatch
import Foundation
import ObjectGraph
import Streams
import Synchronization

/// X1 and X2's model: the rows a live result follows (`IndexedRow`, whose `name` is indexed) and
/// an entity only the other process's import writes.
let sharedModel = try! ObjectModel(entities: [IndexedRow.self, ImportedRecord.self])

/// The writer process of X1 and X2: this benchmark executable, started again with
/// `STREAMS_BENCH_WRITER` naming the store. It answers each command on its standard input once
/// saved, with `ok <monotonic nanoseconds when the save returned>`:
///
/// - `rename <key> <name>`: renames one row;
/// - `import <count>`: inserts `count` `ImportedRecord`s in one save (saying `saving` first).
enum WriterProcess {
    static let variable = "STREAMS_BENCH_WRITER"
    /// Names a PostgreSQL store instead (P2), by its connection string.
    static let postgreSQLVariable = "STREAMS_BENCH_WRITER_POSTGRESQL"

    /// Runs the writer and exits, when this process was started as one.
    static func runIfRequested() {
        RawNotifyWriter.runIfRequested()
        let environment = ProcessInfo.processInfo.environment
        let store: StoreKind
        if let path = environment[variable] {
            store = .sqlite(URL(fileURLWithPath: path))
        } else if let connection = environment[postgreSQLVariable] {
            store = .postgreSQL(connection)
        } else {
            return
        }
        let container = try! PersistentContainer(model: sharedModel, store: store)
        let context = container.newBackgroundContext(name: "writer")
        let rowEntity = sharedModel.entity(named: "IndexedRow")!
        func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
        while let line = readLine() {
            let words = line.split(separator: " ").map(String.init)
            context.performAndWait {
                switch words.first {
                case "rename":
                    let row = context.object(with: ObjectID(entity: rowEntity, primaryKey: Int64(words[1])!), as: IndexedRow.self)!
                    row.name = words[2]
                case "import":
                    for index in 0..<Int(words[1])! { ImportedRecord(context: context).payload = index }
                    say("saving")
                default:
                    exit(0)
                }
                try! context.save()
            }
            say("ok \(DispatchTime.now().uptimeNanoseconds)")
        }
        exit(0)
    }

    /// A writer process on the store at `url`, and its pipes.
    final class Handle {
        let process = Process()
        let input = Pipe()
        let output = Pipe()
        private var buffered = ""

        convenience init(storeURL url: URL) {
            self.init(environment: [WriterProcess.variable: url.path])
        }

        /// This executable started again with `environment` added to this process's.
        init(environment: [String: String]) {
            // This executable, wherever the benchmark tool started it from (its argv[0] may be a
            // bare name).
            process.executableURL = Bundle.main.executableURL ?? URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            process.arguments = []
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            process.standardInput = input
            process.standardOutput = output
            try! process.run()
        }

        func send(_ command: String) {
            input.fileHandleForWriting.write(Data((command + "\n").utf8))
        }

        func readLine() -> String {
            while !buffered.contains("\n") {
                let chunk = output.fileHandleForReading.availableData
                precondition(!chunk.isEmpty, "the writer process ended")
                buffered += String(decoding: chunk, as: UTF8.self)
            }
            let line = String(buffered.prefix { $0 != "\n" })
            buffered.removeFirst(line.count + 1)
            return line
        }

        /// When the writer's last save returned, in this machine's monotonic clock.
        func readSavedTime() -> UInt64 {
            let answer = readLine()
            precondition(answer.hasPrefix("ok "), "the writer said \(answer)")
            return UInt64(answer.dropFirst(3))!
        }

        func stop() {
            send("quit")
            process.waitUntilExit()
        }
    }
}

/// The time from a save returning in another process to the difference delivered here, in
/// microseconds: X1's measure (the save itself, with its `fsync`, is the writer's business).
let propagationMetric = BenchmarkMetric.custom("Propagation (μs)", polarity: .prefersSmaller, useScalingFactor: false)
/// The time from asking for a save (of a sibling context, or of the other process through its
/// pipe) to the difference delivered here, the save's `fsync` included, in microseconds.
let saveToDeliveryMetric = BenchmarkMetric.custom("Save to delivery (μs)", polarity: .prefersSmaller, useScalingFactor: false)
/// One query's time on the view context, in microseconds: X2's measure.
let queryLatencyMetric = BenchmarkMetric.custom("Query (μs)", polarity: .prefersSmaller, useScalingFactor: false)

/// A SQLite store at a fresh URL with `count` rows, named `row <n>` and ranked by `n`.
func sharedStore(rows count: Int) -> URL {
    let url = freshDatabaseURL()
    fillSharedStore(.sqlite(url), rows: count)
    return url
}

/// Fills the store of `kind` with `count` rows, named `row <n>` and ranked by `n`.
func fillSharedStore(_ kind: StoreKind, rows count: Int) {
    let container = try! PersistentContainer(model: sharedModel, store: kind, viewContextQueue: DispatchQueue(label: "bench.setup"))
    let context = container.newBackgroundContext()
    context.performAndWait {
        for index in 0..<count {
            let row = IndexedRow(context: context)
            row.name = "row \(index)"
            row.rank = index
        }
        try! context.save()
    }
    container.close()
}

func registerHistoryScenarios() {
    // X1: a save in another process → the difference delivered to a live result here. The
    // sibling row: the same save made by a background context of this container.
    for size in [10_000, 100_000] {
        for otherProcess in [true, false] {
            let name = "X1-\(size) " + (otherProcess ? "Streams" : "sibling")
            let saves = 200
            Benchmark(name, configuration: .init(
                metrics: [.wallClock, propagationMetric, saveToDeliveryMetric], warmupIterations: 0, scalingFactor: .one,
                maxDuration: .seconds(60), maxIterations: 1
            )) { benchmark in
                let url = sharedStore(rows: size)
                defer { removeDatabase(at: url) }
                let container = try! PersistentContainer(model: sharedModel, storeURL: url, viewContextQueue: DispatchQueue(label: "bench.view"))
                measureLiveRenames(benchmark, container: container, size: size, saves: saves) {
                    otherProcess ? WriterProcess.Handle(storeURL: url) : nil
                }
            }
        }
    }

    // X2: the view context's query latency (Q1's fetch by an indexed ==) while another process
    // imports 100,000 rows of an entity no live result follows, against the same queries with
    // nothing running. The view follows `IndexedRow` with a changesPublisher throughout; the
    // busy side queries from the moment the import's save begins until the container has
    // merged it and 500 queries ran.
    for busy in [true, false] {
        Benchmark(busy ? "X2 Streams" : "X2 idle", configuration: .init(
            metrics: [.wallClock, queryLatencyMetric], warmupIterations: 0, scalingFactor: .one, maxDuration: .seconds(60), maxIterations: 3
        )) { benchmark in
            let url = sharedStore(rows: 10_000)
            defer { removeDatabase(at: url) }
            let container = try! PersistentContainer(model: sharedModel, storeURL: url, viewContextQueue: DispatchQueue(label: "bench.view"))
            let view = container.viewContext
            let live = view.changesPublisher(for: FetchRequest<IndexedRow>(sortBy: [SortDescriptor(\.rank)])).sink(receiveCompletion: { _ in }, receiveValue: { _ in })
            let merged = DispatchSemaphore(value: 0)
            let remote = container.remoteChanges.sink { _ in merged.signal() }
            let writer = busy ? WriterProcess.Handle(storeURL: url) : nil
            if let writer {
                writer.send("import \(storeRowCount)")
                let answer = writer.readLine()
                precondition(answer == "saving", "the writer said \(answer)")
            }
            benchmark.startMeasurement()
            var queries = 0
            var importMerged = !busy
            while queries < 500 || !importMerged {
                let name = "row \((queries * 7_919) % 10_000)"
                let start = DispatchTime.now().uptimeNanoseconds
                let found = view.performAndWait { try! view.fetch(FetchRequest<IndexedRow>(predicate: #Predicate { $0.name == name })) }
                benchmark.measurement(queryLatencyMetric, Int(DispatchTime.now().uptimeNanoseconds - start) / 1_000)
                precondition(found.count == 1)
                queries += 1
                if !importMerged, merged.wait(timeout: .now()) == .success { importMerged = true }
            }
            benchmark.stopMeasurement()
            if let writer {
                _ = writer.readSavedTime()
                writer.stop()
            }
            withExtendedLifetime((live, remote)) {}
        }
    }

    // X3: the price of history: D1 (100,000 inserts in one save) and single-object saves, with
    // the store recording history and without.
    for recordsHistory in [true, false] {
        let suffix = recordsHistory ? "Streams" : "no history"
        var options = ChangeFeedOptions()
        options.recordsHistory = recordsHistory
        Benchmark("X3-D1 \(suffix)", configuration: .init(scalingFactor: .one, maxDuration: storeBudget, maxIterations: 9)) { benchmark in
            measureD1(benchmark, changeFeed: options)
        }
        // 100 saves of one new object each; the report divides by 100.
        Benchmark("X3-single \(suffix)", configuration: .init(scalingFactor: .one, maxDuration: storeBudget, maxIterations: 20)) { benchmark in
            let url = freshDatabaseURL()
            defer { removeDatabase(at: url) }
            let container = try! PersistentContainer(model: indexedRowModel, storeURL: url, viewContextQueue: DispatchQueue(label: "bench.view"), changeFeed: options)
            let context = container.newBackgroundContext()
            context.performAndWait {
                IndexedRow(context: context).name = "warm-up"
                try! context.save()
                benchmark.startMeasurement()
                for index in 0..<100 {
                    IndexedRow(context: context).name = "row \(index)"
                    try! context.save()
                }
                benchmark.stopMeasurement()
            }
        }
    }
}

/// X1 and P2's loop: a `changesPublisher` over the `size` rows of `container`, then `saves`
/// renames, each asked of the writer process `makeWriter` starts (or, without one, made by a
/// sibling context), measured from asking to the difference delivered here, and from the
/// writer's save returning.
func measureLiveRenames(_ benchmark: Benchmark, container: PersistentContainer, size: Int, saves: Int, makeWriter: () -> WriterProcess.Handle?) {
    let view = container.viewContext

    let delivered = DispatchSemaphore(value: 0)
    let deliveredAt = Atomic<UInt64>(0)
    let live = view.changesPublisher(for: FetchRequest<IndexedRow>(sortBy: [SortDescriptor(\.rank)])).sink(
        receiveCompletion: { _ in },
        receiveValue: { _ in
            deliveredAt.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed)
            delivered.signal()
        })
    delivered.wait()  // the first value: every row
    let writer = makeWriter()
    let sibling = container.newBackgroundContext(name: "sibling")
    let rows = sibling.performAndWait { try! sibling.fetch(FetchRequest<IndexedRow>(sortBy: [SortDescriptor(\.rank)])) }
    benchmark.startMeasurement()
    for step in 0..<saves {
        let key = Int64((step * 7_919) % size + 1)
        let asked = DispatchTime.now().uptimeNanoseconds
        if let writer {
            writer.send("rename \(key) renamed-\(step)")
            let savedAt = writer.readSavedTime()
            precondition(delivered.wait(timeout: .now() + 10) == .success, "no difference delivered")
            let at = deliveredAt.load(ordering: .relaxed)
            benchmark.measurement(propagationMetric, Int(max(at, savedAt) - savedAt) / 1_000)
        } else {
            sibling.performAndWait {
                rows[Int(key) - 1].name = "renamed-\(step)"
                try! sibling.save()
            }
            precondition(delivered.wait(timeout: .now() + 10) == .success, "no difference delivered")
        }
        benchmark.measurement(saveToDeliveryMetric, Int(deliveredAt.load(ordering: .relaxed) - asked) / 1_000)
    }
    benchmark.stopMeasurement()
    writer?.stop()
    withExtendedLifetime((live, rows)) {}
}
