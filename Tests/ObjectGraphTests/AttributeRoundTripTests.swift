import Foundation
import ObjectGraph
import Testing

@Suite("attribute round trips")
struct AttributeRoundTripTests {
    static let edgeUUID = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!

    /// Fills every attribute; `extreme` strings hold a NUL character except on PostgreSQL, whose
    /// text cannot (see ``PostgreSQLStoreTests``).
    private func fill(_ object: AllTypes, extreme: Bool, nul: Bool = true) {
        object.bool = extreme
        object.int = extreme ? Int.max : Int.min
        object.int8 = extreme ? Int8.max : Int8.min
        object.int16 = extreme ? Int16.max : Int16.min
        object.int32 = extreme ? Int32.max : Int32.min
        object.int64 = extreme ? Int64.max : Int64.min
        object.uint8 = extreme ? UInt8.max : 0
        object.uint16 = extreme ? UInt16.max : 0
        object.uint32 = extreme ? UInt32.max : 0
        object.double = extreme ? Double.greatestFiniteMagnitude : -Double.leastNonzeroMagnitude
        object.float = extreme ? Float.pi : -0.0
        object.string = extreme ? "naïve café — 東京 🚀\(nul ? "\0" : "")after-nul" : ""
        object.date = extreme ? Date(timeIntervalSinceReferenceDate: 123_456_789.123_456) : Date(timeIntervalSince1970: 0)
        object.data = extreme ? Data((0...255).map(UInt8.init)) : Data()
        object.uuid = Self.edgeUUID
        object.optionalString = extreme ? "present" : nil
        object.optionalInt = extreme ? -42 : nil
        object.optionalDate = extreme ? Date(timeIntervalSinceReferenceDate: -1) : nil
        object.optionalData = extreme ? Data([0]) : nil
        object.optionalUUID = extreme ? Self.edgeUUID : nil
        object.optionalBool = extreme ? false : nil
        object.optionalDouble = extreme ? .infinity : nil
    }

    private func expectSame(_ lhs: AllTypes, _ rhs: AllTypes) {
        #expect(lhs.bool == rhs.bool)
        #expect(lhs.int == rhs.int)
        #expect(lhs.int8 == rhs.int8)
        #expect(lhs.int16 == rhs.int16)
        #expect(lhs.int32 == rhs.int32)
        #expect(lhs.int64 == rhs.int64)
        #expect(lhs.uint8 == rhs.uint8)
        #expect(lhs.uint16 == rhs.uint16)
        #expect(lhs.uint32 == rhs.uint32)
        #expect(lhs.double == rhs.double)
        #expect(lhs.float.bitPattern == rhs.float.bitPattern)
        #expect(lhs.string == rhs.string)
        #expect(lhs.date == rhs.date)
        #expect(lhs.data == rhs.data)
        #expect(lhs.uuid == rhs.uuid)
        #expect(lhs.optionalString == rhs.optionalString)
        #expect(lhs.optionalInt == rhs.optionalInt)
        #expect(lhs.optionalDate == rhs.optionalDate)
        #expect(lhs.optionalData == rhs.optionalData)
        #expect(lhs.optionalUUID == rhs.optionalUUID)
        #expect(lhs.optionalBool == rhs.optionalBool)
        #expect(lhs.optionalDouble == rhs.optionalDouble)
    }

    @Test("every attribute type survives a save and a read in another context", arguments: StoreFlavor.allCases, [false, true])
    func roundTrip(flavor: StoreFlavor, extreme: Bool) throws {
        let container = try flavor.makeContainer()
        let view = container.viewContext
        let (original, id) = try view.performAndWait {
            let object = AllTypes(context: view)
            fill(object, extreme: extreme, nul: flavor != .postgreSQL)
            try view.save()
            return (object, object.objectID!)
        }
        let background = container.newBackgroundContext()
        try background.performAndWait {
            let copy = try #require(background.object(with: id, as: AllTypes.self))
            #expect(copy !== original)
            view.performAndWait { expectSame(original, copy) }
        }
    }

    @Test("values set before insertion are kept")
    func valuesBeforeInsertion() throws {
        let container = try TestModel.container()
        let view = container.viewContext
        try view.performAndWait {
            let content = Content()
            content.name = "early"
            content.rank = 7
            #expect(content.objectID == nil)
            view.insert(content)
            #expect(content.objectID != nil)
            #expect(content.name == "early" && content.rank == 7)
            try view.save()
            #expect(try view.fetch(FetchRequest<Content>()).map(\.name) == ["early"])
        }
    }
}
