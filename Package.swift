// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Streams",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "Streams", targets: ["Streams"]),
        .library(name: "StreamsTesting", targets: ["StreamsTesting"]),
        .library(name: "StreamsFoundation", targets: ["StreamsFoundation"]),
        .library(name: "ObjectGraph", targets: ["ObjectGraph"]),
        .executable(name: "streams-demo", targets: ["streams-demo"]),
    ],
    targets: [
        .target(name: "Streams"),
        .target(name: "StreamsTesting", dependencies: ["Streams"]),
        // Foundation's publishers (NotificationCenter, Timer, URLSession) with Combine's names;
        // empty where Combine exists, so that they never clash with Apple's own.
        .target(name: "StreamsFoundation", dependencies: ["Streams"]),
        .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]),
        // libpq, for the PostgreSQL store; pkg-config finds Homebrew's keg-only copy on macOS.
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"]), .brew(["libpq"])]),
        .target(name: "ObjectGraph", dependencies: ["Streams", "CSQLite", "CLibPQ"]),
        .executableTarget(name: "streams-demo", dependencies: ["Streams", "ObjectGraph"]),
        // Spawned by the SQLite durability test, which kills it mid-save.
        .executableTarget(name: "objectgraph-durability-child", dependencies: ["ObjectGraph"]),
        // Spawned by the change-feed tests: another process writing the same file.
        .executableTarget(name: "objectgraph-history-child", dependencies: ["ObjectGraph"]),
        .testTarget(name: "StreamsTests", dependencies: ["Streams", "StreamsTesting"]),
        .testTarget(name: "StreamsTestingTests", dependencies: ["Streams", "StreamsTesting"]),
        .testTarget(name: "StreamsFoundationTests", dependencies: ["Streams", "StreamsFoundation", "StreamsTesting"]),
        .testTarget(name: "ObjectGraphTests", dependencies: ["ObjectGraph", "Streams", "StreamsTesting", "CSQLite", "CLibPQ"]),
    ],
    swiftLanguageModes: [.v6]
)
