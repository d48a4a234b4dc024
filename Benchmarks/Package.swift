// swift-tools-version: 6.1
import PackageDescription
import class Foundation.NSString

// SwiftPM names a path dependency after its folder, which is wherever the repository was cloned.
let root = ((#filePath as NSString).deletingLastPathComponent as NSString).deletingLastPathComponent
let rootPackage = (root as NSString).lastPathComponent

// The benchmark package: our library next to its peers, measured in the same run.
// Only this package has dependencies; the library at the root has none.
let package = Package(
    name: "StreamsBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/OpenCombine/OpenCombine", exact: "0.14.0"),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
    ],
    targets: [
        // The raw SQLite baseline links the system library directly, as our store does.
        .systemLibrary(name: "CSQLiteRaw", path: "Sources/CSQLiteRaw"),
        // The raw PostgreSQL baseline (P1–P3) links libpq directly, as our store does.
        .systemLibrary(name: "CLibPQRaw", path: "Sources/CLibPQRaw", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .executableTarget(
            name: "StreamsBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Streams", package: rootPackage),
                .product(name: "ObjectGraph", package: rootPackage),
                .product(name: "OpenCombine", package: "OpenCombine"),
                .product(name: "GRDB", package: "GRDB.swift"),
                "CSQLiteRaw",
                "CLibPQRaw",
            ],
            path: "Benchmarks/StreamsBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
