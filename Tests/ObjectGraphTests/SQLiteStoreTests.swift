import Dispatch
import Foundation
import ObjectGraph
import Testing

@Suite("SQLite store: values and relationships")
struct SQLiteStoreTests {
    /// One `AllTypes` object's values, compared field by field (doubles by bit pattern, so that
    /// NaN and -0.0 count).
    struct AllTypesValues: Equatable, CustomStringConvertible {
        var bool = false, int = 0, int8: Int8 = 0, int16: Int16 = 0, int32: Int32 = 0, int64: Int64 = 0
        var uint8: UInt8 = 0, uint16: UInt16 = 0, uint32: UInt32 = 0
        var doubleBits: UInt64 = 0, floatBits: UInt32 = 0
        var string = "", dateBits: UInt64 = 0, data = Data(), uuid = UUID()
        var optionalString: String?, optionalInt: Int?, optionalDateBits: UInt64?, optionalData: Data?
        var optionalUUID: UUID?, optionalBool: Bool?, optionalDoubleBits: UInt64?

        init(_ object: AllTypes) {
            bool = object.bool; int = object.int; int8 = object.int8; int16 = object.int16
            int32 = object.int32; int64 = object.int64; uint8 = object.uint8; uint16 = object.uint16
            uint32 = object.uint32; doubleBits = object.double.bitPattern; floatBits = object.float.bitPattern
            string = object.string; dateBits = object.date.timeIntervalSinceReferenceDate.bitPattern
            data = object.data; uuid = object.uuid; optionalString = object.optionalString
            optionalInt = object.optionalInt; optionalDateBits = object.optionalDate?.timeIntervalSinceReferenceDate.bitPattern
            optionalData = object.optionalData; optionalUUID = object.optionalUUID
            optionalBool = object.optionalBool; optionalDoubleBits = object.optionalDouble?.bitPattern
        }

        /// Every field, long texts cut short, so that a failure stays readable.
        var description: String {
            Mirror(reflecting: self).children.map { child in
                let value = String(describing: child.value)
                return "\(child.label ?? "?"): \(value.count > 40 ? value.prefix(40) + "…(\(value.count))" : value)"
            }.joined(separator: ", ")
        }
    }

    /// Fills `object` with the `variant`-th set of edge values.
    static func fill(_ object: AllTypes, variant: Int) {
        let doubles: [Double] = [-0.0, .nan, .infinity, -.infinity, .leastNonzeroMagnitude, .greatestFiniteMagnitude, -.leastNormalMagnitude, 0.1 + 0.2, 1e15 + 0.5, 3]
        let floats: [Float] = [-0.0, .nan, .infinity, .leastNonzeroMagnitude, .greatestFiniteMagnitude, 0.1, 1]
        let strings = ["", "héllo wörld", "👋🏽 emoji, ZWJ 👨‍👩‍👧", "nul \u{0} inside", "'quotes' \"and\" ;--", String(repeating: "long ", count: 10_000), "日本語テキスト"]
        let datas = [Data(), Data([0]), Data([0, 255, 0, 1]), Data((0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })]
        let dates = [Date(timeIntervalSinceReferenceDate: 0), .distantPast, .distantFuture, Date(timeIntervalSinceReferenceDate: 1234.000_000_001), Date(timeIntervalSinceReferenceDate: -0.0), Date(timeIntervalSinceReferenceDate: .nan)]
        let isMax = variant.isMultiple(of: 2)
        object.bool = isMax
        object.int = isMax ? .max : .min
        object.int8 = isMax ? .max : .min
        object.int16 = isMax ? .max : .min
        object.int32 = isMax ? .max : .min
        object.int64 = isMax ? .max : .min
        object.uint8 = isMax ? .max : .min
        object.uint16 = isMax ? .max : .min
        object.uint32 = isMax ? .max : .min
        object.double = doubles[variant % doubles.count]
        object.float = floats[variant % floats.count]
        object.string = strings[variant % strings.count]
        object.date = dates[variant % dates.count]
        object.data = datas[variant % datas.count]
        object.uuid = UUID()
        let hasOptionals = variant % 3 != 0
        object.optionalString = hasOptionals ? strings[(variant + 1) % strings.count] : nil
        object.optionalInt = hasOptionals ? (isMax ? .max : .min) : nil
        object.optionalDate = hasOptionals ? dates[(variant + 1) % dates.count] : nil
        object.optionalData = hasOptionals ? datas[(variant + 1) % datas.count] : nil
        object.optionalUUID = hasOptionals ? UUID() : nil
        object.optionalBool = hasOptionals ? !isMax : nil
        object.optionalDouble = hasOptionals ? doubles[(variant + 3) % doubles.count] : nil
    }

    @Test("every attribute type round-trips exactly, edge values included")
    func attributeRoundTrip() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("types.sqlite")
            let written = try SQLiteFixture.withViewContext(at: url) { context in
                var values: [Int64: AllTypesValues] = [:]
                for variant in 0..<14 {
                    let object = AllTypes(context: context)
                    Self.fill(object, variant: variant)
                    values[object.objectID!.primaryKey] = AllTypesValues(object)
                }
                try context.save()
                return values
            }
            // A new container reads the file, not the first one's objects.
            let read = try SQLiteFixture.withViewContext(at: url) { context in
                Dictionary(uniqueKeysWithValues: try context.fetch(FetchRequest<AllTypes>()).map { ($0.objectID!.primaryKey, AllTypesValues($0)) })
            }
            #expect(read.count == 14)
            for (key, value) in written {
                #expect(read[key] == value, "object \(key)")
            }
        }
    }

    @Test("an update rewrites the changed attributes and bumps the version")
    func updateRoundTrip() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("update.sqlite")
            let (id, expected) = try SQLiteFixture.withViewContext(at: url) { context in
                let object = AllTypes(context: context)
                Self.fill(object, variant: 1)
                try context.save()
                Self.fill(object, variant: 6)
                object.optionalString = nil
                try context.save()
                return (object.objectID!, AllTypesValues(object))
            }
            try SQLiteFixture.withViewContext(at: url) { context in
                let object = try #require(context.object(with: id, as: AllTypes.self))
                #expect(AllTypesValues(object) == expected)
            }
        }
    }

    @Test("an update assigns only the columns it changes (and the version): the others, and the indexes on them, are left as stored")
    func updateAssignsChangedColumnsOnly() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("partial.sqlite")
            let container = try SQLiteFixture.container(at: url)
            let statements = QuerySQLLogTests.Collected()
            let context = container.viewContext
            let (id, expected) = try context.performAndWait {
                let object = AllTypes(context: context)
                Self.fill(object, variant: 1)
                try context.save()
                container.sqlLogHandler = { statements.append($0) }
                object.int = 424_242
                object.optionalString = nil
                try context.save()
                container.sqlLogHandler = nil
                return (object.objectID!, AllTypesValues(object))
            }
            let update = try #require(statements.all.map(\.sql).first { $0.hasPrefix("UPDATE \"AllTypes\"") })
            #expect(update.hasPrefix("UPDATE \"AllTypes\" SET version = ?1, \"int\" = ?2, \"optionalString\" = ?3 WHERE pk = ?4"), "\(update)")
            container.close()
            try SQLiteFixture.withViewContext(at: url) { context in
                let object = try #require(context.object(with: id, as: AllTypes.self))
                #expect(AllTypesValues(object) == expected)
                #expect(object.int == 424_242 && object.optionalString == nil)
            }
        }
    }

    @Test("one-to-many relationships are stored on the to-one side and read from both")
    func oneToMany() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("one-to-many.sqlite")
            try SQLiteFixture.withViewContext(at: url) { context in
                let owner = Owner(context: context)
                owner.name = "Ada"
                for name in ["Inbox", "Archive"] {
                    let bucket = Bucket(context: context)
                    bucket.name = name
                    bucket.owner = owner
                    for index in 0..<3 {
                        let content = Content(context: context)
                        content.name = "\(name) \(index)"
                        content.bucket = bucket
                    }
                }
                try context.save()
            }
            try SQLiteFixture.withViewContext(at: url) { context in
                let buckets = try context.fetch(FetchRequest<Bucket>(sortBy: [SortDescriptor(\.name)]))
                #expect(buckets.map(\.name) == ["Archive", "Inbox"])
                #expect(buckets.allSatisfy { $0.owner?.name == "Ada" })
                #expect(Set(buckets[1].contents.map(\.name)) == ["Inbox 0", "Inbox 1", "Inbox 2"])
                #expect(try #require(buckets.first?.owner).buckets.count == 2)
                // Move one content; both sides follow after a reopen.
                let moved = try #require(buckets[1].contents.first { $0.name == "Inbox 0" })
                moved.bucket = buckets[0]
                try context.save()
            }
            try SQLiteFixture.withViewContext(at: url) { context in
                let buckets = try context.fetch(FetchRequest<Bucket>(sortBy: [SortDescriptor(\.name)]))
                #expect(Set(buckets[0].contents.map(\.name)) == ["Archive 0", "Archive 1", "Archive 2", "Inbox 0"])
                #expect(buckets[1].contents.count == 2)
            }
        }
    }

    @Test("many-to-many relationships are stored once in a join table and read from both sides")
    func manyToMany() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("many-to-many.sqlite")
            try SQLiteFixture.withViewContext(at: url) { context in
                let swift = Tag(context: context)
                swift.title = "swift"
                let linux = Tag(context: context)
                linux.title = "linux"
                for name in ["a", "b", "c"] {
                    let content = Content(context: context)
                    content.name = name
                }
                let contents = try context.fetch(FetchRequest<Content>(sortBy: [SortDescriptor(\.name)]))
                swift.contents = Set(contents[0...1])
                contents[2].tags = [swift, linux]
                try context.save()
            }
            try SQLiteFixture.withViewContext(at: url) { context in
                let tags = try context.fetch(FetchRequest<Tag>(sortBy: [SortDescriptor(\.title)]))
                #expect(tags.map(\.title) == ["linux", "swift"])
                #expect(Set(tags[1].contents.map(\.name)) == ["a", "b", "c"])
                #expect(tags[0].contents.map(\.name) == ["c"])
                let c = try #require(tags[0].contents.first)
                #expect(Set(c.tags.map(\.title)) == ["linux", "swift"])
                // Remove from one side; the other side follows.
                let a = try #require(tags[1].contents.first { $0.name == "a" })
                a.tags = []
                try context.save()
            }
            try SQLiteFixture.withViewContext(at: url) { context in
                let swift = try #require(context.fetch(FetchRequest<Tag>(predicate: #Predicate { $0.title == "swift" })).first)
                #expect(Set(swift.contents.map(\.name)) == ["b", "c"])
            }
        }
    }

    @Test("sub-entities share their root's table and come back as their own class")
    func subentities() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("subentities.sqlite")
            try SQLiteFixture.withViewContext(at: url) { context in
                let bucket = Bucket(context: context)
                bucket.name = "Photos"
                let tag = Tag(context: context)
                tag.title = "mixed"
                let image = ImageContent(context: context)
                image.name = "sunset"
                image.pixelWidth = 4_096
                image.bucket = bucket
                let text = Content(context: context)
                text.name = "caption"
                text.bucket = bucket
                tag.contents = [image, text]
                try context.save()
            }
            try SQLiteFixture.withViewContext(at: url) { context in
                let all = try context.fetch(FetchRequest<Content>(sortBy: [SortDescriptor(\.name)]))
                #expect(all.map(\.name) == ["caption", "sunset"])
                #expect(!(all[0] is ImageContent))
                #expect((all[1] as? ImageContent)?.pixelWidth == 4_096)
                var onlyContents = FetchRequest<Content>()
                onlyContents.includesSubentities = false
                #expect(try context.fetch(onlyContents).map(\.name) == ["caption"])
                #expect(try context.fetch(FetchRequest<ImageContent>()).map(\.name) == ["sunset"])
                let bucket = try #require(all[1].bucket)
                #expect(bucket.contents.contains { $0 is ImageContent })
                let tag = try #require(context.fetch(FetchRequest<Tag>()).first)
                #expect(tag.contents.filter { $0 is ImageContent }.count == 1)
            }
        }
    }

    @Test("one-to-one, symmetric, inverse-less and polymorphic relationships round-trip")
    func otherShapes() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("shapes.sqlite")
            let model = SQLiteFixture.shapesModel
            try SQLiteFixture.withViewContext(at: url, model: model) { context in
                let ada = Person(context: context)
                ada.name = "Ada"
                let bob = Person(context: context)
                bob.name = "Bob"
                let passport = Passport(context: context)
                passport.number = "X123"
                ada.passport = passport
                ada.friends = [bob]
                let book = Book(context: context)
                book.title = "Notes"
                ada.readingList = [book]
                let drawing = Drawing(context: context)
                drawing.title = "Engine"
                drawing.strokes = 42
                ada.favorite = drawing
                try context.save()
            }
            try SQLiteFixture.withViewContext(at: url, model: model) { context in
                let people = try context.fetch(FetchRequest<Person>(sortBy: [SortDescriptor(\.name)]))
                let (ada, bob) = (people[0], people[1])
                #expect(ada.passport?.number == "X123")
                #expect(ada.passport?.holder === ada)
                #expect(ada.friends == [bob])
                #expect(bob.friends == [ada])
                #expect(ada.readingList.map(\.title) == ["Notes"])
                #expect((ada.favorite as? Drawing)?.strokes == 42)
                #expect(bob.passport == nil)
                // Delete the passport and a friend: both sides are cleaned up.
                context.delete(try #require(ada.passport))
                context.delete(bob)
                try context.save()
            }
            try SQLiteFixture.withViewContext(at: url, model: model) { context in
                let ada = try #require(context.fetch(FetchRequest<Person>()).first)
                #expect(ada.passport == nil)
                #expect(ada.friends.isEmpty)
                #expect(try context.fetch(FetchRequest<Passport>()).isEmpty)
            }
        }
    }

    @Test("a deleted object is gone from the file, with its join-table pairs")
    func deletion() throws {
        try SQLiteFixture.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("delete.sqlite")
            try SQLiteFixture.withViewContext(at: url) { context in
                let bucket = Bucket(context: context)
                let tag = Tag(context: context)
                let content = Content(context: context)
                content.bucket = bucket
                content.tags = [tag]
                try context.save()
                context.delete(bucket)  // cascades to the content
                try context.save()
            }
            try SQLiteFixture.withViewContext(at: url) { context throws in
                #expect(try context.fetch(FetchRequest<Bucket>()).isEmpty)
                #expect(try context.fetch(FetchRequest<Content>()).isEmpty)
                #expect(try #require(context.fetch(FetchRequest<Tag>()).first).contents.isEmpty)
            }
        }
    }
}
