/// Everything that can go wrong in the object graph, each case naming what it is about.
public enum ObjectGraphError: Error, Equatable, Sendable, CustomStringConvertible {
    // Model
    /// Two entities share a name or a class.
    case duplicateEntity(String)
    /// An attribute's Swift type cannot be stored.
    case unsupportedAttributeType(entity: String, property: String, type: String)
    /// A relationship's declared type is neither `T?` nor `Set<T>` of a model class.
    case unsupportedRelationshipType(entity: String, property: String, type: String)
    /// A relationship points to a class that is not in the model.
    case unknownDestination(entity: String, property: String, destination: String)
    /// A relationship's inverse does not exist on the destination entity.
    case missingInverse(entity: String, property: String, inverse: String, destination: String)
    /// A relationship and its declared inverse do not name each other.
    case mismatchedInverse(entity: String, property: String, inverse: String, destination: String)
    /// A class that is not in the model was used.
    case unknownEntity(String)
    /// A key path or property name does not exist on the entity.
    case unknownProperty(entity: String, property: String)
    /// A model's version is below 1.
    case invalidModelVersion(Int)
    /// Stored values that their attribute's type cannot read any more: an enum case removed, a
    /// `Codable` type changed. Found when a file is opened (every value, when the type's shape
    /// changed), when rows are fetched (an enum's raw values), or when the property is read
    /// (reported by the next `save()`); see `Docs/Modeling.md`.
    case undecodableValues(path: String, values: [UndecodableValue])
    /// A value set on an attribute could not be put in its stored form (its `encode(to:)`
    /// threw); the attribute kept its previous value.
    case unencodableValue(entity: String, property: String, reason: String)

    // Objects and contexts
    /// The object is not registered in this context (another context's object, or never inserted).
    case objectNotInContext(String)
    /// No object with this ID exists in the store.
    case objectNotFound(ObjectID)
    /// An ordered to-many relationship (an `Array`) was set with an object more than once: it
    /// kept the first occurrence, and the next `save()` throws this (writing nothing) so that
    /// the loss is seen. `member` is the repeated object.
    case duplicateRelationshipMember(entity: String, property: String, member: String)
    /// A save found objects changed by someone else since they were read, on the same keys.
    case mergeConflict([MergeConflict])
    /// A predicate threw while it was evaluated during a fetch.
    case predicateFailed(entity: String, message: String)
    /// A key path in `relationshipKeyPathsForRefreshing` is not usable.
    case invalidRefreshingKeyPath(path: String, entity: String, reason: String)
    /// The section key does not agree with the first sort descriptor.
    case sectionKeyNotSorted(entity: String)
    /// A single-object fetch matched more than one object.
    case multipleMatches(entity: String, count: Int)
    /// A save or batch delete would delete objects whose relationships under the
    /// ``DeleteRule/deny`` rule still hold other objects; nothing was written and the context
    /// keeps its changes.
    case deleteDenied([DeniedDelete])
    /// Objects a save would write break their attributes' ``AttributeValidation`` rules or fail
    /// their ``ManagedObject/validate()``; nothing was written and the context keeps its
    /// changes.
    case validationFailed([ValidationFailure])

    // Stores
    /// The file is not a database, or is damaged.
    case corruptStore(path: String, message: String)
    /// The file is not a store this version can open: a SQLite database that is no ObjectGraph
    /// store, another store format, or a description of its schema it cannot read.
    case incompatibleStore(path: String, message: String)
    /// The file cannot be opened or written (permissions, missing folder, read-only location).
    case storeUnavailable(path: String, message: String)
    /// SQLite reported an error.
    case sqlite(path: String, code: Int32, message: String)
    /// Another connection holds the database locked for longer than the busy timeout.
    case storeBusy(path: String)
    /// The container was closed; its contexts can no longer read or write.
    case storeClosed(path: String)
    /// The system's SQLite library is older than the store needs.
    case unsupportedSQLiteVersion(path: String, found: String, needed: String)

    // PostgreSQL servers
    /// A PostgreSQL connection string that libpq cannot read (an unknown keyword, a malformed
    /// URI). The message never holds the password.
    case invalidConnectionString(message: String)
    /// No PostgreSQL server answered at `server` (nothing listening, a network failure, a
    /// timeout); nothing was read or written.
    case serverUnreachable(server: String, database: String, message: String)
    /// The server at `server` answered but refused the login: a wrong password, an unknown role
    /// or database, no `pg_hba.conf` entry, a database that does not accept connections.
    case loginRefused(server: String, database: String, user: String, message: String)
    /// The server at `server` answered but accepts no new connection right now: it has as many
    /// as it allows (`max_connections`, or the role's or database's `CONNECTION LIMIT`; SQLSTATE
    /// `53300`), or it is starting up, shutting down or recovering (`57P03`). Nothing was read or
    /// written; trying again later can succeed.
    case serverBusy(server: String, database: String, message: String)
    /// The connection to the server was lost (the server restarted or shut down, the session was
    /// terminated, the network dropped). The server rolls back the transaction in progress, so
    /// nothing of it was written — unless it was lost while committing, which the message says;
    /// the next use reconnects.
    case connectionLost(server: String, database: String, message: String)
    /// The PostgreSQL server reported an error; `code` is its SQLSTATE (`23505`, `40001`, …).
    case postgreSQL(server: String, database: String, code: String, message: String)

    // Migrations
    /// The file was written by a newer version of the model than the one opening it; nothing
    /// was changed.
    case newerStore(path: String, fileVersion: Int, modelVersion: Int)
    /// Bringing the file to the model would lose data or cannot be inferred; nothing was
    /// changed. Each change says what it refuses and how to allow it.
    case migrationRefused(path: String, changes: [RefusedChange])
    /// A migration stage threw; the whole migration was rolled back and nothing was changed.
    case migrationStageFailed(path: String, stage: String, message: String)
    /// The migration plan contradicts itself or the model.
    case invalidMigrationPlan(String)

    // Indexes and uniqueness
    /// An index or uniqueness constraint names something that cannot be indexed: a key path
    /// that is not a stored property of the entity, a to-many relationship, a property twice.
    case invalidIndex(entity: String, property: String, reason: String)
    /// A save would leave two objects with equal values under a uniqueness constraint; nothing
    /// was written and the context keeps its unsaved changes.
    case uniquenessViolation([UniquenessConflict])
    /// A uniqueness constraint's index was missing from the file (dropped by a tool or a manual
    /// repair) and cannot be built again because objects in the file already share values under
    /// it; the store was not opened and nothing was changed. `index` is the index's name in the
    /// file; each conflict names two objects that collide.
    case uniquenessViolationInStore(path: String, index: String, conflicts: [UniquenessConflict])

    // Batch work
    /// A batch update cannot set a key path: it is not an `@Attribute` of the entity (a
    /// relationship, a computed property), or the value's type cannot be stored. Nothing was
    /// changed.
    case invalidBatchUpdate(entity: String, keyPath: String, reason: String)
    /// A batch's predicate has parts SQL cannot answer exactly (listed with the reason); a batch
    /// runs wholly in SQL, so nothing was changed.
    case batchPredicateNotTranslatable(entity: String, parts: [String])

    // History
    /// The history after `token` was trimmed (every reader that still counts had read it, or
    /// it was deleted): the transactions after `oldestAvailable` are all that is kept.
    case historyTokenExpired(path: String, token: Int64, oldestAvailable: Int64)
    /// The token was issued by another store: another file, or this file before it was erased
    /// and made anew.
    case historyTokenMismatch(path: String)
    /// The token is newer than the store's newest transaction, `latest`: the file was restored
    /// from an older copy (a backup), or the token comes from a newer copy of it. Nothing after
    /// it can be told apart from what it skipped.
    case historyTokenAhead(path: String, token: Int64, latest: Int64)

    /// A sentence saying what went wrong and, where there is one, how to fix it.
    public var description: String {
        switch self {
        case .duplicateEntity(let name):
            "The model lists the entity '\(name)' twice; give each class one entry."
        case let .unsupportedAttributeType(entity, property, type):
"\(entity).\(property): attributes of type \(type) cannot be stored; use Bool, an integer, Double, Float, String, Date, Data, UUID, URL, Decimal, an enum with raw values of these, a Codable type, an array or set of these, or an optional of any of them."
        case let .unsupportedRelationshipType(entity, property, type):
            "\(entity).\(property): a relationship must be declared as an optional model object (T?) or a Set of model objects, not \(type)."
        case let .unknownDestination(entity, property, destination):
            "\(entity).\(property) points to \(destination), which is not in the model; add it to ObjectModel(entities:)."
        case let .missingInverse(entity, property, inverse, destination):
            "\(entity).\(property) declares the inverse '\(inverse)', but \(destination) has no relationship of that name."
        case let .mismatchedInverse(entity, property, inverse, destination):
            "\(entity).\(property) declares the inverse \(destination).\(inverse), but \(destination).\(inverse) does not point back to \(entity).\(property)."
        case .unknownEntity(let name):
            "The class \(name) is not an entity of this model; add it to ObjectModel(entities:)."
        case let .unknownProperty(entity, property):
            "The entity \(entity) has no property '\(property)'."
        case .invalidModelVersion(let version):
            "A model's version must be 1 or more, not \(version)."
        case let .undecodableValues(path, values):
            "The store at \(path) holds values their attributes' types cannot read: " + values.map(\.description).joined(separator: "; ")
                + ". Nothing was changed. Give the type back what it lost (the enum case, the Codable key, or a decoding that accepts the old form), or convert the values in a MigrationStage that lists the property in converting: (see Docs/Modeling.md)."
        case let .unencodableValue(entity, property, reason):
            "\(entity).\(property) cannot store the value it was given: \(reason). It kept its previous value."
        case .objectNotInContext(let object):
            "\(object) does not belong to this context; pass its objectID and look it up with object(with:)."
        case .objectNotFound(let id):
            "No object \(id) exists in the store; it may have been deleted."
        case let .duplicateRelationshipMember(entity, property, member):
            "\(entity).\(property) is ordered and holds each object once, but was given \(member) more than once; it kept the first occurrence. Nothing was written: check the relationship and save again (test with contains(_:) before appending, or move the object instead)."
        case .mergeConflict(let conflicts):
            "The save conflicts with changes saved elsewhere: " + conflicts.map(\.description).joined(separator: "; ")
                + ". Refresh the objects or choose a merge policy (storeWins or objectWins)."
        case let .predicateFailed(entity, message):
            "The predicate on \(entity) failed while it was evaluated: \(message)"
        case let .invalidRefreshingKeyPath(path, entity, reason):
            "The refreshing key path '\(path)' on \(entity) is not usable: \(reason)."
        case .sectionKeyNotSorted(let entity):
            "The fetched-results controller on \(entity) is sectioned by a key path that is not its first sort descriptor; sort by the section key first so that each section is one run."
        case let .multipleMatches(entity, count):
            "Expected at most one \(entity) to match, but \(count) did."
        case .validationFailed(let failures):
            "The save would write objects that are not valid: " + failures.map(\.description).joined(separator: "; ")
                + ". Nothing was written and the context keeps its changes: fix the values and save again, or roll them back."
        case .deleteDenied(let denied):
            "The delete rule deny forbids deleting " + denied.map(\.description).joined(separator: "; ")
                + ": each still holds the objects listed. Nothing was written and the context keeps its changes: remove those objects from the relationship (or delete them) and save again, or roll the delete back."
        case let .corruptStore(path, message):
            "The store at \(path) is damaged or not a database (\(message)); nothing was changed. Restore it from a backup or move it aside."
        case let .incompatibleStore(path, message):
            "The store at \(path) cannot be opened by this version (\(message)); nothing was changed. Open it with the app that wrote it, or use a new file."
        case let .storeUnavailable(path, message):
            "The store at \(path) cannot be opened (\(message)). Check that the folder exists and is writable."
        case let .sqlite(path, code, message):
            "SQLite error \(code) on \(path): \(message)"
        case .storeBusy(let path):
            "The store at \(path) is locked by another connection; try again later."
        case let .newerStore(path, fileVersion, modelVersion):
            "The store at \(path) was written by version \(fileVersion) of the model, newer than this app's version \(modelVersion); nothing was changed. Open it with the newer version of the app: an older model would drop what the newer one added."
        case let .migrationRefused(path, changes):
            "The store at \(path) cannot be brought to the model without losing data; nothing was changed. "
                + changes.map(\.description).joined(separator: " ")
        case let .migrationStageFailed(path, stage, message):
            "The migration stage '\(stage)' failed on the store at \(path): \(message). The whole migration was rolled back; nothing was changed."
        case .invalidMigrationPlan(let reason):
            "The migration plan is not usable: \(reason)."
        case let .invalidIndex(entity, property, reason):
            "An index of \(entity) names \(property), which cannot be indexed: \(reason)."
        case .uniquenessViolation(let conflicts):
            "The save would break uniqueness: " + conflicts.map(\.description).joined(separator: "; ")
                + ". Nothing was written and the context keeps its changes: change one of the objects, or set the context's uniquenessPolicy to .upsert to make an inserted object update the existing one."
        case let .uniquenessViolationInStore(path, index, conflicts):
            "The store at \(path) lacks the index \(index) that keeps objects unique, and it cannot be built again: "
                + conflicts.map(\.description).joined(separator: "; ")
                + ". Nothing was changed. Make the objects unique (open the file with a model version that does not declare the constraint, and change or delete one object of each pair), then open it again."
        case .storeClosed(let path):
            "The store at \(path) was closed (PersistentContainer.close()); open a new container to use it again."
        case let .unsupportedSQLiteVersion(path, found, needed):
            "The store at \(path) cannot be opened: the system's SQLite library is version \(found), and ObjectGraph needs \(needed) or later; nothing was changed. Install a newer libsqlite3."
        case let .invalidBatchUpdate(entity, keyPath, reason):
            "A batch update of \(entity) cannot set \(keyPath): \(reason). Nothing was changed."
        case let .batchPredicateNotTranslatable(entity, parts):
            "A batch on \(entity) runs in SQL, but part of its predicate cannot: " + parts.joined(separator: "; ")
                + ". Nothing was changed. Write the predicate over stored attributes and relationships (see explain(_:)), or fetch the objects and change them one by one."
        case .invalidConnectionString(let message):
            "The PostgreSQL connection string cannot be read (\(message)). Write it as a URI (postgresql://user@host/database?sslmode=require) or as keywords (host=… dbname=… user=…)."
        case let .serverUnreachable(server, database, message):
            "No PostgreSQL server answered at \(server) (database \(database)): \(message). Check that the server runs and that the host and port (or socket folder) are right."
        case let .loginRefused(server, database, user, message):
            "The PostgreSQL server at \(server) refused the login of \(user) to the database \(database): \(message). Check the user, the password, that the database exists and the server's pg_hba.conf."
        case let .serverBusy(server, database, message):
            "The PostgreSQL server at \(server) (database \(database)) accepts no new connection right now: \(message). Try again later; if it lasts, raise the server's max_connections (or the role's CONNECTION LIMIT) or have fewer containers and pools connected."
        case let .connectionLost(server, database, message):
            "The connection to the PostgreSQL server at \(server) (database \(database)) was lost: \(message). The server rolled back the transaction in progress; try again (the next use reconnects)."
        case let .postgreSQL(server, database, code, message):
            "PostgreSQL error \(code) on \(server) (database \(database)): \(message)"
        case let .historyTokenExpired(path, token, oldest):
            "The history of \(path) after token \(token) was trimmed; it keeps the transactions after token \(oldest) only. Fetch what you need afresh and go on from history.currentToken(); record your progress with history.recordProgress(_:reader:) so that history you have not read is kept."
        case .historyTokenMismatch(let path):
            "The history token was issued by another store than \(path) (another file, or this file before it was erased and made anew). Fetch what you need afresh and go on from history.currentToken()."
        case let .historyTokenAhead(path, token, latest):
            "The history token \(token) is ahead of the history of \(path), whose newest transaction is \(latest): the file was restored from an older copy, or the token comes from a newer copy of it. Fetch what you need afresh and go on from history.currentToken()."
        }
    }
}

/// One object whose save collided with a change saved elsewhere.
public struct MergeConflict: Equatable, Sendable, CustomStringConvertible {
    /// The object.
    public let objectID: ObjectID
    /// The properties changed both here and in the store.
    public let keys: [String]

    /// Describes a conflict on `keys` of the object `objectID`.
    public init(objectID: ObjectID, keys: [String]) {
        self.objectID = objectID
        self.keys = keys
    }

    /// `"Bucket/3 (name, owner)"`.
    public var description: String { "\(objectID) (\(keys.joined(separator: ", ")))" }
}
