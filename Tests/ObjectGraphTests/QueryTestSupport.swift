import Foundation
@testable import ObjectGraph

/// A key-path resolver that knows the properties it is told, for translating without a store.
struct NamedKeyPaths: QueryKeyPathResolver {
    let names: [AnyKeyPath: String]

    func property(for keyPath: AnyKeyPath, in entity: EntityDescription) -> PropertyDescription? {
        names[keyPath].flatMap { entity.property(named: $0) }
    }

    /// Every stored property of the test model that the translator tests use.
    static var testModel: NamedKeyPaths { NamedKeyPaths(names: [
        \Content.name: "name", \Content.rank: "rank", \Content.isEven: "isEven", \Content.creationDate: "creationDate",
        \Content.bucket: "bucket", \Content.tags: "tags", \ImageContent.pixelWidth: "pixelWidth",
        \Bucket.name: "name", \Bucket.contents: "contents", \Bucket.owner: "owner", \Owner.name: "name",
        \Tag.title: "title",
        \AllTypes.double: "double", \AllTypes.optionalDouble: "optionalDouble", \AllTypes.optionalInt: "optionalInt",
        \AllTypes.optionalString: "optionalString", \AllTypes.string: "string", \AllTypes.int: "int",
        \AllTypes.date: "date", \AllTypes.uuid: "uuid", \AllTypes.data: "data", \AllTypes.optionalBool: "optionalBool",
        \AllTypes.float: "float", \AllTypes.int8: "int8",
    ]) }
}

/// Translates `predicate` on the test model and renders what SQL narrows with.
func translatedSQL<T: ManagedObject>(_ predicate: Predicate<T>, model: ObjectModel = TestModel.model) -> (sql: String?, bindings: [PropertyValue], translated: TranslatedPredicate) {
    let entity = model.entity(for: T.self)!
    var translator = PredicateTranslator(model: model, resolver: NamedKeyPaths.testModel)
    let translated = translator.translate(predicate, on: entity)
    guard let condition = translated.condition else { return (nil, [], translated) }
    var renderer = SQLQueryRenderer(schema: SQLSchema(model: model), model: model)
    let sql = renderer.condition(condition)
    return (sql, renderer.bindings, translated)
}
