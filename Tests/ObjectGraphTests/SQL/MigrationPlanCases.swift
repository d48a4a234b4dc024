@testable import ObjectGraph

/// Every small schema of a small world, and what a migration between two of them must do,
/// worked out by rules written here independently of the planner.
///
/// The world: entity `A` (always there) with attributes `x` and `z`, and entity `B` (there or
/// not) with attribute `y`. Each attribute is absent or has one of a few types; a model may
/// call `x` `w`, declaring `originalName: "x"`.
struct MigrationPlanCase {
    /// An attribute's state in one schema.
    enum Attribute: Hashable, CaseIterable, CustomStringConvertible {
        case absent, int64, optionalInt64, int16, string, bool
        /// Only files written by the first release have it: an integer of unrecorded width.
        case legacyInteger

        var typeName: String? {
            switch self {
            case .absent: nil
            case .int64, .optionalInt64: "int64"
            case .int16: "int16"
            case .string: "string"
            case .bool: "bool"
            case .legacyInteger: "integer"
            }
        }

        var isOptional: Bool { self == .optionalInt64 }

        var attributeType: AttributeType {
            switch self {
            case .string: .string
            case .bool: .bool
            default: .integer
            }
        }

        /// The initial value a required attribute of the model has.
        var initialValue: PropertyValue {
            switch self {
            case .string: .string("it's")
            case .bool: .bool(true)
            default: .integer(7)
            }
        }

        var description: String { typeName.map { $0 + (isOptional ? "?" : "") } ?? "absent" }
    }

    struct Schema: Hashable, CustomStringConvertible {
        var x: Attribute
        var z: Attribute
        /// `nil`: no entity `B`.
        var y: Attribute?
        /// A model's name for `x`, when it renamed it to `w`.
        var renamesX = false

        var xName: String { renamesX ? "w" : "x" }

        var description: String { "A(\(xName): \(x), z: \(z))" + (y.map { ", B(y: \($0))" } ?? "") }

        /// The description a file (`asFile`) or a model has of it, laid out as a new file.
        func stored(asFile: Bool) -> StoredSchema {
            func properties(_ attributes: [(String, Attribute)]) -> [StoredProperty] {
                attributes.compactMap { name, attribute in
                    guard let type = attribute.typeName else { return nil }
                    var property = StoredProperty(name: name, kind: .attribute, type: type, isOptional: attribute.isOptional)
                    if !asFile && !attribute.isOptional { property.defaultValue = attribute.initialValue }
                    return property
                }
            }
            var aProperties = properties([(xName, x), ("z", z)])
            if renamesX, let index = aProperties.firstIndex(where: { $0.name == "w" }) { aProperties[index].originalName = "x" }
            var entities = [StoredEntity(name: "A", superentity: nil, table: "", properties: aProperties, indexes: [])]
            if let y {
                entities.append(StoredEntity(name: "B", superentity: nil, table: "", properties: properties([("y", y)]), indexes: []))
            }
            return StoredSchema(entities: entities).laidOutAsNew()
        }

        /// Every schema a file may have.
        static let fileSchemas: [Schema] = {
            let xs: [Attribute] = [.absent, .int64, .optionalInt64, .int16, .string, .legacyInteger]
            let zs: [Attribute] = [.absent, .bool]
            let ys: [Attribute?] = [nil, .absent, .int64, .string]
            return xs.flatMap { x in zs.flatMap { z in ys.map { y in Schema(x: x, z: z, y: y) } } }
        }()

        /// Every schema a model may have (no legacy types), `x` renamed or not.
        static let modelSchemas = fileSchemas.filter { $0.x != .legacyInteger }.flatMap { schema in
            var renamed = schema
            renamed.renamesX = true
            return schema.x == .absent ? [schema] : [schema, renamed]
        }
    }

    /// What the plan must contain; compared without regard to order within `expand` and
    /// `contract` (nothing in this world depends on it).
    struct Expectation: Equatable {
        var expand: [String] = []
        var contract: [String] = []
        var checks: [String] = []
        /// `Entity.property` (or `Entity`) of each refused change.
        var refusals: [String] = []

        func sorted() -> Expectation {
            Expectation(expand: expand.sorted(), contract: contract.sorted(), checks: checks.sorted(), refusals: refusals.sorted())
        }
    }

    let old: Schema
    let new: Schema
    /// Whether the model's version is above the file's, which allows removals.
    let allowsRemovals: Bool

    /// The rules, one attribute at a time.
    func expectation() -> Expectation {
        var expected = Expectation()
        var droppedColumns: [String: [String]] = [:]
        attribute("A", new.xName, old.x, new.x, into: &expected, dropping: &droppedColumns)
        if new.renamesX && old.x != .absent {
            // The column keeps its values and takes the new name at the end of the step.
            expected.contract.append("\(MigrationOperation.renameColumn(table: "A", from: "x", to: "w"))")
        }
        attribute("A", "z", old.z, new.z, into: &expected, dropping: &droppedColumns)
        switch (old.y, new.y) {
        case (nil, nil):
            break
        case (nil, let y?):
            let columns = y.typeName.map { _ in [SQLTable.Column.property("y", .attribute(y.attributeType))] } ?? []
            expected.expand.append("\(MigrationOperation.createTable(.entities("B", columns: columns)))")
            expected.expand.append("\(MigrationOperation.insertKeyRow(root: "B"))")
        case (_?, nil):
            guard allowsRemovals else {
                expected.refusals.append("B")
                break
            }
            expected.contract.append("\(MigrationOperation.dropTable("B"))")
            expected.expand.append("\(MigrationOperation.deleteKeyRows(roots: ["B"]))")
        case let (oldY?, newY?):
            attribute("B", "y", oldY, newY, into: &expected, dropping: &droppedColumns)
        }
        // A table's dropped columns go in one operation.
        for (table, columns) in droppedColumns {
            expected.contract.append("\(MigrationOperation.dropColumns(table: table, columns: columns))")
        }
        // A plan with a refused change is no plan: the refusals, all at once, are the answer.
        return expected.refusals.isEmpty ? expected.sorted() : Expectation(refusals: expected.refusals).sorted()
    }

    private func attribute(
        _ entity: String, _ name: String, _ old: Attribute, _ new: Attribute, into expected: inout Expectation, dropping dropped: inout [String: [String]]
    ) {
        switch (old.typeName, new.typeName) {
        case (nil, nil):
            return
        case (nil, _?):
            expected.expand.append("\(MigrationOperation.addColumn(table: entity, column: name, type: .attribute(new.attributeType), defaultValue: new.isOptional ? nil : new.initialValue))")
        case (_?, nil):
            if allowsRemovals {
                dropped[entity, default: []].append(name)
            } else {
                expected.refusals.append("\(entity).\(name)")
            }
        case (_?, _?) where name == "w":
            // Kept under its new name: as `x` would be.
            attribute(entity, "x", old, new, into: &expected, dropping: &dropped)
            expected.refusals = expected.refusals.map { $0 == "\(entity).x" ? "\(entity).w" : $0 }
        case let (oldType?, newType?):
            // What the types allow: the same, a wider integer, or the first release's integer
            // into one of a recorded width (kept if every value fits).
            let range: ClosedRange<Int64>? = newType == "int16" ? Int64(Int16.min)...Int64(Int16.max) : nil
            let kept = oldType == newType || (oldType == "int16" && newType == "int64") || (oldType == "integer" && newType == "int64")
            let keptIfFits = oldType == "integer" && newType == "int16"
            if !kept && !keptIfFits {
                expected.refusals.append("\(entity).\(name)")
            } else if old.isOptional && !new.isOptional {
                expected.refusals.append("\(entity).\(name)")
            } else if keptIfFits, let range {
                expected.checks.append("\(DataCheck.Query.valueOutside(table: entity, column: name, range: range, scope: nil))")
            }
        }
    }

    /// What the planner makes of it.
    func planned() -> (expectation: Expectation, step: MigrationStep?) {
        let planner = MigrationPlanner(
            old: old.stored(asFile: true), new: new.stored(asFile: false), allowsRemovals: allowsRemovals, conversions: [],
            context: .init(fileVersion: 1, modelVersion: allowsRemovals ? 2 : 1, stage: nil))
        do {
            let step = try planner.plan()
            return (Expectation(expand: step.expand.map { "\($0)" }, contract: step.contract.map { "\($0)" },
                                checks: step.checks.map { "\($0.query)" }).sorted(), step)
        } catch {
            return (Expectation(refusals: error.changes.map { $0.entity + ($0.property.map { ".\($0)" } ?? "") }).sorted(), nil)
        }
    }

    /// Every pair of a file schema and a model schema, with and without removals allowed.
    static let all: [MigrationPlanCase] = Schema.fileSchemas.flatMap { old in
        Schema.modelSchemas.flatMap { new in [false, true].map { MigrationPlanCase(old: old, new: new, allowsRemovals: $0) } }
    }
}
