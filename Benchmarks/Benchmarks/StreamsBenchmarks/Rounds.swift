// The plugin keeps its registry in a static var; this file only touches it during registration.
@preconcurrency import Benchmark
import Foundation

/// `Benchmarks/run --rounds N` measures every benchmark N times (in N processes, over the whole
/// run) and reports the median of the rounds. It sets `STREAMS_BENCH_ROUNDS` to N, and each
/// round then gets 1/N of a benchmark's sampling budget, so that N rounds sample about as long
/// as one run used to: `maxDuration / N` and `maxIterations / N` (rounded up), but no fewer
/// than `minimumIterations` iterations where the benchmark allowed that many. A benchmark whose
/// samples are its own metrics, taken inside an iteration (X1, X2, P2), gets no such floor: one
/// iteration a round still gives it many samples (X1 and P2 have only one and run it whole).
enum Rounds {
    static let variable = "STREAMS_BENCH_ROUNDS"
    /// The fewest iterations a round allows, so that each round's p50 is a median of several.
    static let minimumIterations = 5

    static var count: Int {
        ProcessInfo.processInfo.environment[variable].flatMap { Int($0) }.map { max($0, 1) } ?? 1
    }

    /// Shares each registered benchmark's budget across the rounds.
    static func shareBudgets() {
        let rounds = count
        guard rounds > 1 else { return }
        for benchmark in Benchmark.benchmarks {
            benchmark.configuration = share(benchmark.configuration, rounds: rounds)
        }
    }

    static func share(_ configuration: Benchmark.Configuration, rounds: Int) -> Benchmark.Configuration {
        var shared = configuration
        let iterations = configuration.maxIterations
        let samplesInside = configuration.metrics.contains { metric in
            if case .custom = metric { return true }
            return false
        }
        shared.maxIterations = max((iterations + rounds - 1) / rounds, samplesInside ? 1 : min(iterations, minimumIterations))
        shared.maxDuration = configuration.maxDuration / rounds
        return shared
    }
}
