package import NavJSON

/// A compact binary form for values kept in memory in bulk (the event logs): unsigned integers
/// as LEB128 varints, signed ones zigzagged first, strings and blobs length-first.
extension [UInt8] {
  @inline(__always)
  package mutating func appendVarint(_ value: UInt64) {
    // Most are one byte (versions, counts, kinds): that case inline, the rest in a call.
    if value < 0x80 {
      append(UInt8(truncatingIfNeeded: value))
    } else {
      appendLongVarint(value)
    }
  }

  private mutating func appendLongVarint(_ value: UInt64) {
    var rest = value
    while rest >= 0x80 {
      append(UInt8(truncatingIfNeeded: rest) | 0x80)
      rest >>= 7
    }
    append(UInt8(rest))
  }

  /// Eight bytes, little-endian: quicker than a varint for numbers that are seldom small.
  package mutating func appendFixed(_ value: UInt64) {
    for shift in stride(from: 0, to: 64, by: 8) {
      append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
    }
  }

  package mutating func appendVarint(_ value: Int) {
    appendVarint(UInt64(bitPattern: Int64(value << 1) ^ Int64(value >> 63)))
  }

  package mutating func appendBlob(_ text: String) {
    var text = text
    text.withUTF8 { utf8 in
      appendVarint(UInt64(utf8.count))
      append(contentsOf: utf8)
    }
  }

  package mutating func appendJSON(_ value: JSONValue) {
    switch value {
    case .null: append(0)
    case .bool(let flag): append(flag ? 2 : 1)
    case .int(let number):
      append(3)
      appendVarint(number)
    case .double(let number):
      append(4)
      appendVarint(number.bitPattern)
    case .number(let number):
      append(8)
      appendBlob(number.text)
    case .string(let text):
      append(5)
      appendBlob(text)
    case .array(let elements):
      append(6)
      appendVarint(UInt64(elements.count))
      for element in elements { appendJSON(element) }
    case .object(let object):
      append(7)
      appendVarint(UInt64(object.members.count))
      for member in object.members {
        appendBlob(member.key)
        appendJSON(member.value)
      }
    }
  }
}

/// Reads what the `[UInt8]` appenders wrote; every read checks its bounds and answers nil on bytes
/// that are cut short or malformed, so damaged input is refused, never trapped on.
package struct ByteReader {
  package let bytes: [UInt8]
  package private(set) var offset: Int

  package init(_ bytes: [UInt8], at offset: Int = 0) {
    self.bytes = bytes
    self.offset = offset
  }

  package var isAtEnd: Bool { offset >= bytes.count }

  /// The next `count` bytes, or nil when fewer are left.
  package mutating func bytes(_ count: Int) -> [UInt8]? {
    guard count >= 0, count <= bytes.count - offset else { return nil }
    defer { offset += count }
    return Array(bytes[offset..<offset + count])
  }

  /// Eight bytes, little-endian (what ``Swift/Array/appendFixed(_:)`` wrote).
  package mutating func fixed() -> UInt64? {
    guard bytes.count - offset >= 8 else { return nil }
    var value: UInt64 = 0
    for index in (0..<8).reversed() { value = value << 8 | UInt64(bytes[offset + index]) }
    offset += 8
    return value
  }

  package mutating func byte() -> UInt8? {
    guard offset < bytes.count else { return nil }
    defer { offset += 1 }
    return bytes[offset]
  }

  package mutating func varint() -> UInt64? {
    var value: UInt64 = 0
    var shift: UInt64 = 0
    while let byte = byte() {
      guard shift < 64 else { return nil }
      value |= UInt64(byte & 0x7F) << shift
      if byte < 0x80 { return value }
      shift += 7
    }
    return nil
  }

  /// A number from 0 to `Int.max`.
  package mutating func natural() -> Int? {
    guard let value = varint(), value <= UInt64(Int.max) else { return nil }
    return Int(value)
  }

  /// A length or count: at most the bytes that are left, so damage never makes a huge one.
  package mutating func count() -> Int? {
    guard let value = varint(), value <= UInt64(bytes.count - offset) else { return nil }
    return Int(value)
  }

  package mutating func signed() -> Int? {
    guard let value = varint() else { return nil }
    return Int(Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1))
  }

  package mutating func string() -> String? {
    guard let length = count() else { return nil }
    defer { offset += length }
    return String(validating: bytes[offset..<offset + length], as: UTF8.self)
  }

  /// A JSON value, at most `depth` levels deep.
  package mutating func json(depth: Int = 128) -> JSONValue? {
    guard depth > 0, let tag = byte() else { return nil }
    switch tag {
    case 0: return .null
    case 1: return .bool(false)
    case 2: return .bool(true)
    case 3: return signed().map(JSONValue.int)
    case 4: return varint().map { .double(Double(bitPattern: $0)) }
    case 5: return string().map(JSONValue.string)
    case 6:
      guard let count = count() else { return nil }
      var elements: [JSONValue] = []
      for _ in 0..<count {
        guard let element = json(depth: depth - 1) else { return nil }
        elements.append(element)
      }
      return .array(elements)
    case 7:
      guard let count = count() else { return nil }
      var members: [JSONObject.Member] = []
      for _ in 0..<count {
        guard let key = string(), let value = json(depth: depth - 1) else { return nil }
        members.append(JSONObject.Member(key: key, value: value))
      }
      return .object(JSONObject(members))
    case 8: return string().flatMap(JSONNumber.init(validating:)).map(JSONValue.number)
    default: return nil
    }
  }
}
