/// A statement's parameter, sent in PostgreSQL's binary format with its type named, so that
/// bytes go as they are and a thousand rows go as one array parameter, not a thousand.
public enum PostgresParameter: Sendable {
  case null
  case text(String)
  case bytes([UInt8])
  case int64(Int64)
  case bool(Bool)
  case textArray([String])
  case int64Array([Int64])
  case bytesArray([[UInt8]])

  /// The type's OID (pg_type).
  package var type: UInt32 {
    switch self {
    case .null, .text: 25
    case .bytes: 17
    case .int64: 20
    case .bool: 16
    case .textArray: 1009
    case .int64Array: 1016
    case .bytesArray: 1001
    }
  }

  package var encoded: [UInt8]? {
    switch self {
    case .null: nil
    case .text(let text): Array(text.utf8)
    case .bytes(let bytes): bytes
    case .int64(let value): Self.bigEndian(UInt64(bitPattern: value))
    case .bool(let value): [value ? 1 : 0]
    case .textArray(let texts): Self.array(of: 25, texts.map { Array($0.utf8) })
    case .int64Array(let values):
      Self.array(of: 20, values.map { Self.bigEndian(UInt64(bitPattern: $0)) })
    case .bytesArray(let items): Self.array(of: 17, items)
    }
  }

  private static func bigEndian(_ value: UInt64) -> [UInt8] {
    (0..<8).map { UInt8(truncatingIfNeeded: value >> UInt64(56 - 8 * $0)) }
  }

  private static func bigEndian32(_ value: Int, into bytes: inout [UInt8]) {
    let word = UInt32(truncatingIfNeeded: value)
    for shift in stride(from: 24, through: 0, by: -8) {
      bytes.append(UInt8(truncatingIfNeeded: word >> UInt32(shift)))
    }
  }

  /// A one-dimensional array without nulls: dimensions, a null flag, the element type, then
  /// (length, lower bound 1) and each element after its length. An empty one has no dimension.
  static func array(of elementType: UInt32, _ elements: [[UInt8]]) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(20 + elements.reduce(0) { $0 + 4 + $1.count })
    bigEndian32(elements.isEmpty ? 0 : 1, into: &bytes)
    bigEndian32(0, into: &bytes)
    bigEndian32(Int(elementType), into: &bytes)
    guard !elements.isEmpty else { return bytes }
    bigEndian32(elements.count, into: &bytes)
    bigEndian32(1, into: &bytes)
    for element in elements {
      bigEndian32(element.count, into: &bytes)
      bytes += element
    }
    return bytes
  }
}
