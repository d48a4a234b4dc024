// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Streams",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "Streams", targets: ["Streams"]),
        .library(name: "StreamsTesting", targets: ["StreamsTesting"]),
        .executable(name: "streams-demo", targets: ["streams-demo"]),
    ],
    targets: [
        .target(name: "Streams"),
        .target(name: "StreamsTesting", dependencies: ["Streams"]),
        .executableTarget(name: "streams-demo", dependencies: ["Streams"]),
        .testTarget(name: "StreamsTests", dependencies: ["Streams", "StreamsTesting"]),
        .testTarget(name: "StreamsTestingTests", dependencies: ["Streams", "StreamsTesting"]),
    ],
    swiftLanguageModes: [.v6]
)
