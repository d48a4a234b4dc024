/// The bytes a ``HistoryRecord`` is stored as, the same for every store:
///
/// ```text
/// record := 0x01 count(group) group*
/// group  := kind(0 insert, 1 update, 2 delete) text(entity) count(key) text(key)* count(run) run*
/// run    := gap length-1          (gap: from the end of the previous run; the first run's
///                                  start, zigzag-encoded, since keys are signed)
/// text   := count(bytes) UTF-8
/// ```
///
/// Every number is an unsigned LEB128 varint. Nearly dense keys (a bulk insert's) take a few
/// bytes in all; scattered keys about two bytes each.
extension HistoryRecord {
    static let formatVersion: UInt8 = 1

    func encoded() -> [UInt8] {
        var bytes: [UInt8] = [Self.formatVersion]
        bytes.reserveCapacity(16 + groups.count * 24)
        Self.appendVarint(UInt64(groups.count), to: &bytes)
        for group in groups {
            bytes.append(group.kind.code)
            Self.appendText(group.entityName, to: &bytes)
            Self.appendVarint(UInt64(group.keys.count), to: &bytes)
            for key in group.keys { Self.appendText(key, to: &bytes) }
            let runs = Self.runs(of: group.primaryKeys)
            Self.appendVarint(UInt64(runs.count), to: &bytes)
            var end: Int64 = 0
            for (index, run) in runs.enumerated() {
                let gap = index == 0 ? Self.zigzag(run.start) : UInt64(bitPattern: run.start &- end)
                Self.appendVarint(gap, to: &bytes)
                Self.appendVarint(UInt64(run.count - 1), to: &bytes)
                end = run.start &+ Int64(run.count)
            }
        }
        return bytes
    }

    /// Decodes `bytes`, expanding the keys of the groups whose entity `wants` (the others are
    /// skipped). `nil` if the bytes are not a record this version can read.
    init?(decoding bytes: UnsafeRawBufferPointer, wants: (String) -> Bool = { _ in true }) {
        var reader = ByteReader(bytes: bytes)
        guard reader.byte() == Self.formatVersion, let count = reader.varint() else { return nil }
        var groups: [Group] = []
        for _ in 0..<count {
            guard let code = reader.byte(), let kind = HistoryChange.Kind(code: code), let entity = reader.text(),
                  let keyCount = reader.varint() else { return nil }
            var keys: [String] = []
            for _ in 0..<keyCount {
                guard let key = reader.text() else { return nil }
                keys.append(key)
            }
            guard let runCount = reader.varint() else { return nil }
            let wanted = wants(entity)
            var primaryKeys: [Int64] = []
            var end: Int64 = 0
            for index in 0..<runCount {
                guard let gap = reader.varint(), let extra = reader.varint(), extra < 1 << 40 else { return nil }
                guard wanted else { continue }
                let start = index == 0 ? Self.unzigzag(gap) : end &+ Int64(bitPattern: gap)
                let length = Int64(extra) + 1
                primaryKeys.reserveCapacity(primaryKeys.count + Int(length))
                for offset in 0..<length { primaryKeys.append(start &+ offset) }
                end = start &+ length
            }
            if wanted { groups.append(Group(kind: kind, entityName: entity, keys: keys, primaryKeys: primaryKeys)) }
        }
        self.init(groups: groups)
    }

    // MARK: Pieces

    /// Ascending unique keys as runs of consecutive values.
    private static func runs(of keys: [Int64]) -> [(start: Int64, count: Int)] {
        var runs: [(start: Int64, count: Int)] = []
        for key in keys {
            if let last = runs.last, last.start &+ Int64(last.count) == key {
                runs[runs.count - 1].count += 1
            } else {
                runs.append((key, 1))
            }
        }
        return runs
    }

    private static func zigzag(_ value: Int64) -> UInt64 { UInt64(bitPattern: (value << 1) ^ (value >> 63)) }
    private static func unzigzag(_ value: UInt64) -> Int64 { Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1) }

    private static func appendVarint(_ value: UInt64, to bytes: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    private static func appendText(_ text: String, to bytes: inout [UInt8]) {
        let utf8 = Array(text.utf8)
        appendVarint(UInt64(utf8.count), to: &bytes)
        bytes += utf8
    }

    /// Reads a record's bytes front to back; every read returns `nil` past the end.
    private struct ByteReader {
        let bytes: UnsafeRawBufferPointer
        var offset = 0

        mutating func byte() -> UInt8? {
            guard offset < bytes.count else { return nil }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func varint() -> UInt64? {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while let byte = byte() {
                guard shift < 64 else { return nil }
                value |= UInt64(byte & 0x7f) << shift
                if byte < 0x80 { return value }
                shift += 7
            }
            return nil
        }

        mutating func text() -> String? {
            guard let length = varint(), length <= UInt64(bytes.count - offset) else { return nil }
            defer { offset += Int(length) }
            return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + Int(length))]), as: UTF8.self)
        }
    }
}

extension HistoryChange.Kind {
    /// The kind's number in a stored record.
    var code: UInt8 {
        switch self {
        case .insert: 0
        case .update: 1
        case .delete: 2
        }
    }

    init?(code: UInt8) {
        switch code {
        case 0: self = .insert
        case 1: self = .update
        case 2: self = .delete
        default: return nil
        }
    }
}
