/// Declares a stored attribute of a model class.
///
/// ```swift
/// final class Bucket: ManagedObject {
///     @Attribute var name: String = ""
///     @Attribute var createdAt: Date = .now
///     @Attribute var note: String? = nil
/// }
/// ```
///
/// Supported types: `Bool`, `Int` and its sized variants up to 64 bits (`UInt8`, `UInt16`,
/// `UInt32` too), `Double`, `Float`, `String`, `Date`, `Data`, `UUID` (stored as themselves);
/// `URL`, `Decimal` (exact), enums and other `RawRepresentable` types whose raw value is one of
/// those (stored as the raw value, so predicates and sorts on them run in SQL), any `Codable`
/// type, arrays and sets of supported values (stored as JSON); and optionals of all of these
/// (see ``AttributeType`` and `Docs/Modeling.md`). Another type is reported by
/// ``ObjectModel/init(version:entities:)`` as ``ObjectGraphError/unsupportedAttributeType(entity:property:type:)``.
///
/// ```swift
/// enum Status: String { case open, done }
/// struct Address: Codable, Equatable { var city = ""; var zip = "" }
///
/// final class Order: ManagedObject {
///     @Attribute var status: Status = .open
///     @Attribute var total: Decimal = 0
///     @Attribute var receipt: URL? = nil
///     @Attribute var shipping = Address()
///     @Attribute var tags: [String] = []
/// }
/// ```
///
/// Every read and write goes through the owning object, which records the change for its
/// context. `#Predicate` and `SortDescriptor` use the property as any other.
///
/// An attribute can be indexed, or unique among the objects of its entity:
///
/// ```swift
/// final class Profile: ManagedObject {
///     @Attribute(.unique) var username: String = ""
///     @Attribute(.indexed) var rank: Int = 0
/// }
/// ```
///
/// A renamed attribute names what it was called, so that a store written by the previous model
/// keeps its values (see `Docs/Migrations.md`):
///
/// ```swift
/// @Attribute(.indexed, originalName: "title") var name: String = ""
/// ```
@propertyWrapper
public struct Attribute<Value> {
    @usableFromInline var initialValue: Value
    @usableFromInline var cachedSlot: Int = -1
    @usableFromInline var mark: UInt32 = 0
    /// Read once per class, when the model reflects it; it fits in the wrapper's padding.
    @usableFromInline var options: AttributeOptions = []
    /// The attribute's name in the previous model, if it was renamed.
    @usableFromInline var originalName: String?
    /// The rule a value must follow to be saved, if any.
    @usableFromInline var validation: AttributeValidation<Value>?

    /// Declares the attribute with the value a new object starts with.
    @inlinable
    public init(wrappedValue: Value) {
        initialValue = wrappedValue
    }

    /// Declares the attribute with the value a new object starts with and what the store keeps
    /// for it: ``AttributeOptions/indexed`` or ``AttributeOptions/unique``.
    @inlinable
    public init(wrappedValue: Value, _ options: AttributeOptions) {
        initialValue = wrappedValue
        self.options = options
    }

    /// Declares an attribute that a previous version of the model called `originalName`: a
    /// store written by that version keeps its values under the new name.
    ///
    /// ```swift
    /// @Attribute(originalName: "title") var name: String = ""
    /// @Attribute(.unique, originalName: "login") var username: String = ""
    /// ```
    @inlinable
    public init(wrappedValue: Value, _ options: AttributeOptions = [], originalName: String) {
        initialValue = wrappedValue
        self.options = options
        self.originalName = originalName
    }

    /// Declares an attribute whose values must follow `validation` to be saved (see
    /// ``AttributeValidation``), with the options and the previous name as above.
    ///
    /// ```swift
    /// @Attribute(validation: .range(1...5)) var rating: Int = 3
    /// @Attribute(.indexed, validation: .notEmpty) var title: String = ""
    /// ```
    @inlinable
    public init(wrappedValue: Value, _ options: AttributeOptions = [], originalName: String? = nil, validation: AttributeValidation<Value>) {
        initialValue = wrappedValue
        self.options = options
        self.originalName = originalName
        self.validation = validation
    }

    /// Reads and writes the attribute through the owning object.
    @inlinable
    public static subscript<Object: ManagedObject>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Attribute<Value>>
    ) -> Value {
        get {
            guard object.isManaged else { return object[keyPath: storageKeyPath].initialValue }
            let slot = slotIndex(of: object, storageKeyPath, wrapped: wrappedKeyPath)
            if let value = object.slots[slot].attributeValue(as: Value.self) { return value }
            return object.convertedAttribute(at: slot, initial: object[keyPath: storageKeyPath].initialValue)
        }
        set {
            guard object.isManaged else {
                object[keyPath: storageKeyPath].initialValue = newValue
                return
            }
            let slot = slotIndex(of: object, storageKeyPath, wrapped: wrappedKeyPath)
            // Specialised for a type stored as itself, this is the first branch alone.
            if let stored = PropertyValue(primitiveAttribute: newValue) {
                object.setSlot(slot, to: stored)
            } else {
                object.setConvertedAttribute(newValue, slot: slot)
            }
        }
    }

    /// Not available: an attribute lives only in a ``ManagedObject`` subclass.
    @available(*, unavailable, message: "@Attribute is only available on properties of ManagedObject subclasses")
    public var wrappedValue: Value {
        get { fatalError("unavailable") }
        set { fatalError("unavailable") }  // swiftlint:disable:this unused_setter_value
    }
}

extension Attribute: CachedSlot, ReflectedWrapper {
    var reflectedKind: ReflectedProperty.Kind { .attribute(valueType: Value.self, options: options) }
    var initialPropertyValue: PropertyValue {
        if let common = PropertyValue(commonAttribute: initialValue) { return common }
        return AttributeType.of(Value.self) == nil ? .null : PropertyValue(attribute: initialValue)
    }
    var pendingTargets: [ManagedObject]? { nil }
    var isValidated: Bool { validation != nil }
    var valueInfo: AttributeValueInfo? { AttributeValueInfo(for: Value.self) }

    func validationFailure(of object: ManagedObject, slot: Int) -> String? {
        guard let validation else { return nil }
        return validation.failure(object.slots[slot].attributeValue(as: Value.self) ?? object.convertedAttribute(at: slot, initial: initialValue))
    }
}

/// A wrapper that remembers its object's slot index after the first lookup.
@usableFromInline
protocol CachedSlot {
    var cachedSlot: Int { get set }
    var mark: UInt32 { get set }
}

/// The slot of the property stored at `storage` in `object`: cached in the wrapper after the
/// first lookup, which asks the class layout. `wrapped` is the property's own key path, which
/// the layout learns too (see ``ClassLayout/slot(forWrapped:)``).
@inlinable
func slotIndex<Object: ManagedObject, Wrapper: CachedSlot>(
    of object: Object, _ storage: ReferenceWritableKeyPath<Object, Wrapper>, wrapped: AnyKeyPath
) -> Int {
    let cached = object[keyPath: storage].cachedSlot
    if cached >= 0, !object.reportsSlotLookups { return cached }
    let slot = object.layout.slotIndex(for: storage, wrapped: wrapped, of: object)
    object[keyPath: storage].cachedSlot = slot
    return slot
}
