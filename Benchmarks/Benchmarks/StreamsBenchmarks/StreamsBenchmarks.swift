import Benchmark

/// Every scenario registers its benchmarks as a group: ours, then the peer or baseline it is
/// compared with. Names are `ID subject`, e.g. `S1 Streams`, `S1 OpenCombine`, `S1 loop`; the
/// report script pairs them by ID.
let benchmarks: @Sendable () -> Void = {
    // This executable is also X1, X2 and P2's writer process, started again by them.
    WriterProcess.runIfRequested()
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal, .peakMemoryResident],
        timeUnits: .microseconds,
        warmupIterations: 2,
        maxDuration: .seconds(3),
        maxIterations: 30)
    registerStreamsScenarios()
    registerLiveScenarios()
    registerApplyingScenarios()
    registerStoreScenarios()
    registerMigrationScenarios()
    registerQueryScenarios()
    registerLaunchScenarios()
    registerCombiningScenarios()
    registerAttributeTypeScenarios()
    registerObserverScenarios()
    registerObservationScenarios()
    registerHistoryScenarios()
    registerPostgreSQLScenarios()
    Rounds.shareBudgets()
}
