import Foundation

/// Translates sort descriptors into ``QuerySortKey``s that SQL orders exactly as ``SortKeys``
/// does in memory; `nil` when one of them cannot be (a comparator the dialect lacks).
enum SortTranslator {
    /// The keys of `descriptors` on rows of `entity`, and the key paths the resolver did not
    /// know.
    static func translate<T>(
        _ descriptors: [SortDescriptor<T>], on entity: EntityDescription, resolver: any QueryKeyPathResolver, dialect: SQLDialect = .sqlite
    ) -> (keys: [QuerySortKey]?, unknownKeyPaths: [UnknownKeyPath]) {
        var keys: [QuerySortKey] = []
        var unknown: [UnknownKeyPath] = []
        for descriptor in descriptors {
            guard let keyPath = descriptor.keyPath else { return (nil, unknown) }
            guard let property = resolver.property(for: keyPath, in: entity) else {
                unknown.append(UnknownKeyPath(entity: entity, keyPath: keyPath))
                continue
            }
            guard case .attribute(let type, _) = property.kind, type != .bool, type != .data, type != .codable, type != .url,
                  property.valueInfo?.ordersByStoredValue ?? true else { return (nil, unknown) }
            var collation: QueryCollation?
            if type == .string {
                guard let stringCollation = Self.collation(of: descriptor.stringComparator),
                      stringCollation == .swift || dialect.hasStandardComparators else { return (nil, unknown) }
                collation = stringCollation
            }
            keys.append(QuerySortKey(value: .property(.scope(0, entity), property, QueryType(type)), collation: collation, reverse: descriptor.order == .reverse))
        }
        return (unknown.isEmpty ? keys : nil, unknown)
    }

    /// The collation of a string comparator (`nil`: ``CanonicalStringOrder``), if SQLite has one for it.
    static func collation(of comparator: String.StandardComparator?) -> QueryCollation? {
        guard var comparator else { return .swift }
        comparator.order = .forward
        if comparator == .lexical { return .lexical }
        #if canImport(Darwin)
        if comparator == .localizedStandard { return .localizedStandard }
        if comparator == .localized { return .localized }
        #endif
        return nil
    }
}
