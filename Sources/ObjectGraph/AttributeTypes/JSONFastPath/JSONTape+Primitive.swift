import Foundation

extension JSONTape {
    /// The types a decoding container reads directly.
    enum Primitive {
        case bool, string, double, float, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64

        /// The primitive `T` is, if it is one. (Comparing metatypes costs a fraction of casting.)
        init?<T>(_ type: T.Type) {
            switch ObjectIdentifier(T.self) {
            case ObjectIdentifier(String.self): self = .string
            case ObjectIdentifier(Int.self): self = .int
            case ObjectIdentifier(Bool.self): self = .bool
            case ObjectIdentifier(Double.self): self = .double
            case ObjectIdentifier(Float.self): self = .float
            case ObjectIdentifier(Int64.self): self = .int64
            case ObjectIdentifier(Int32.self): self = .int32
            case ObjectIdentifier(Int16.self): self = .int16
            case ObjectIdentifier(Int8.self): self = .int8
            case ObjectIdentifier(UInt.self): self = .uint
            case ObjectIdentifier(UInt64.self): self = .uint64
            case ObjectIdentifier(UInt32.self): self = .uint32
            case ObjectIdentifier(UInt16.self): self = .uint16
            case ObjectIdentifier(UInt8.self): self = .uint8
            default: return nil
            }
        }
    }

    /// The node at `index` as the primitive type `T`, which is `primitive`'s type; throws
    /// ``JSONTapeDecoder/Unanswered`` when the node does not hold such a value exactly.
    func read<T>(_ primitive: Primitive, at index: Int, as type: T.Type) throws -> T {
        // Each branch bit-casts a value of the type `primitive` names, which is `T`.
        switch primitive {
        case .bool: return unsafeBitCast(try bool(at: index), to: T.self)
        case .string: return unsafeBitCast(try string(at: index), to: T.self)
        case .double: return unsafeBitCast(try floatingPoint(Double.self, at: index), to: T.self)
        case .float: return unsafeBitCast(try floatingPoint(Float.self, at: index), to: T.self)
        case .int: return unsafeBitCast(try integer(Int.self, at: index), to: T.self)
        case .int8: return unsafeBitCast(try integer(Int8.self, at: index), to: T.self)
        case .int16: return unsafeBitCast(try integer(Int16.self, at: index), to: T.self)
        case .int32: return unsafeBitCast(try integer(Int32.self, at: index), to: T.self)
        case .int64: return unsafeBitCast(try integer(Int64.self, at: index), to: T.self)
        case .uint: return unsafeBitCast(try integer(UInt.self, at: index), to: T.self)
        case .uint8: return unsafeBitCast(try integer(UInt8.self, at: index), to: T.self)
        case .uint16: return unsafeBitCast(try integer(UInt16.self, at: index), to: T.self)
        case .uint32: return unsafeBitCast(try integer(UInt32.self, at: index), to: T.self)
        case .uint64: return unsafeBitCast(try integer(UInt64.self, at: index), to: T.self)
        }
    }

    func bool(at index: Int) throws -> Bool {
        let node = node(index)
        guard node.kind == .bool else { throw decline() }
        return node.payload != 0
    }

    func string(at index: Int) throws -> String {
        guard node(index).kind == .string else { throw decline() }
        return text(at: index)
    }

    func integer<I: FixedWidthInteger>(_ type: I.Type, at index: Int) throws -> I {
        let node = node(index)
        let value: I?
        switch node.kind {
        case .integer: value = I(exactly: node.payload)
        case .unsignedInteger: value = I(exactly: UInt64(bitPattern: node.payload))
        default: value = nil
        }
        guard let value else { throw decline() }
        return value
    }

    /// An integer the type holds exactly (so that no rounding rule can differ); fractions and
    /// exponents never reach here (see ``parse(_:)``).
    func floatingPoint<F: BinaryFloatingPoint>(_ type: F.Type, at index: Int) throws -> F {
        let node = node(index)
        let exactLimit = UInt64(1) << (F.significandBitCount + 1)
        guard node.kind == .integer, node.payload.magnitude <= exactLimit else { throw decline() }
        return F(node.payload)
    }
}
