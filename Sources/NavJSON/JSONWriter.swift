/// Writes JSON straight into a byte buffer. Commas are placed by the writer, so callers only say
/// what comes next; this avoids building a `JSONValue` tree for every response.
public struct JSONWriter: Sendable {
  public private(set) var bytes: [UInt8]
  /// Whether the last thing written ended a value, so that the next element needs a comma first.
  /// (After `{`, `[` or a member name it does not; after a value, `}` or `]` it does.)
  private var afterValue = false

  public init(capacity: Int = 512) {
    bytes = []
    bytes.reserveCapacity(capacity)
  }

  public mutating func beginObject() {
    separate()
    bytes.append(UInt8(ascii: "{"))
    afterValue = false
  }

  public mutating func endObject() {
    bytes.append(UInt8(ascii: "}"))
    afterValue = true
  }

  public mutating func beginArray() {
    separate()
    bytes.append(UInt8(ascii: "["))
    afterValue = false
  }

  public mutating func endArray() {
    bytes.append(UInt8(ascii: "]"))
    afterValue = true
  }

  /// Writes a member name known when compiling (it must need no escaping): copied as it is,
  /// with no check. The next value written belongs to it.
  public mutating func key(_ name: StaticString) {
    separate()
    bytes.append(UInt8(ascii: "\""))
    bytes.append(
      contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
    bytes.append(UInt8(ascii: "\""))
    bytes.append(UInt8(ascii: ":"))
    afterValue = false
  }

  /// Writes a member name made at run time, escaped as needed.
  public mutating func key(named name: String) {
    separate()
    appendQuoted(name)
    bytes.append(UInt8(ascii: ":"))
    afterValue = false
  }

  public mutating func string(_ value: String) {
    separate()
    appendQuoted(value)
  }

  /// A string the caller knows needs no escaping (ASCII letters, digits and punctuation other
  /// than quote and backslash), written from bytes without building a `String`.
  public mutating func plainString(_ bytes: UnsafeBufferPointer<UInt8>) {
    separate()
    self.bytes.append(UInt8(ascii: "\""))
    self.bytes.append(contentsOf: bytes)
    self.bytes.append(UInt8(ascii: "\""))
  }

  public mutating func int(_ value: Int) {
    separate()
    appendInteger(value)
  }

  public mutating func double(_ value: Double) {
    separate()
    if value.isFinite {
      bytes.append(contentsOf: value.description.utf8)
    } else {
      bytes.append(contentsOf: "null".utf8)
    }
  }

  public mutating func bool(_ value: Bool) {
    separate()
    bytes.append(contentsOf: (value ? "true" : "false").utf8)
  }

  public mutating func null() {
    separate()
    bytes.append(contentsOf: "null".utf8)
  }

  /// Members of the open object that are already encoded (`"a":1,"b":2`), written as they are.
  public mutating func members(_ encoded: [UInt8]) {
    separate()
    bytes.append(contentsOf: encoded)
  }

  /// Bytes that are already one JSON value.
  public mutating func raw(_ encoded: [UInt8]) {
    separate()
    bytes.append(contentsOf: encoded)
  }

  public mutating func value(_ value: JSONValue) {
    switch value {
    case .null: null()
    case .bool(let flag): bool(flag)
    case .int(let number): int(number)
    case .double(let number): double(number)
    case .string(let text): string(text)
    case .array(let elements):
      beginArray()
      for element in elements { self.value(element) }
      endArray()
    case .object(let object):
      beginObject()
      for member in object.members {
        key(named: member.key)
        self.value(member.value)
      }
      endObject()
    }
  }

  /// Before an element: a comma if a value precedes it. Every element is a value once written.
  private mutating func separate() {
    if afterValue { bytes.append(UInt8(ascii: ",")) }
    afterValue = true
  }

  private mutating func appendInteger(_ value: Int) {
    guard value >= 0 else {
      bytes.append(contentsOf: String(value).utf8)
      return
    }
    Self.appendDigits(of: value, to: &bytes)
  }

  /// Appends the decimal digits of a non-negative number, with no allocation.
  public static func appendDigits(of value: Int, to output: inout [UInt8]) {
    if value < 10 {
      output.append(UInt8(ascii: "0") + UInt8(value))
      return
    }
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
      var remaining = value
      var count = 0
      while remaining > 0 {
        digits[19 - count] = UInt8(ascii: "0") + UInt8(remaining % 10)
        remaining /= 10
        count += 1
      }
      output.append(contentsOf: UnsafeBufferPointer(rebasing: digits[(20 - count)...]))
    }
  }

  private static func needsEscape(_ byte: UInt8) -> Bool {
    byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
  }

  private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

  private mutating func appendQuoted(_ text: String) {
    bytes.append(UInt8(ascii: "\""))
    // Most strings (ids, routes, keys) need no escaping: copy them whole.
    var text = text
    let copied = text.withUTF8 { utf8 -> Bool in
      // A plain loop: `contains(where:)` with a function value costs a call per byte.
      for byte in utf8 where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
      {
        return false
      }
      bytes.append(contentsOf: utf8)
      return true
    }
    if copied {
      bytes.append(UInt8(ascii: "\""))
      return
    }
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "\""):
        bytes.append(UInt8(ascii: "\\"))
        bytes.append(byte)
      case UInt8(ascii: "\\"):
        bytes.append(UInt8(ascii: "\\"))
        bytes.append(byte)
      case 0x0A:
        bytes.append(UInt8(ascii: "\\"))
        bytes.append(UInt8(ascii: "n"))
      case 0x0D:
        bytes.append(UInt8(ascii: "\\"))
        bytes.append(UInt8(ascii: "r"))
      case 0x09:
        bytes.append(UInt8(ascii: "\\"))
        bytes.append(UInt8(ascii: "t"))
      case 0..<0x20:
        bytes.append(contentsOf: "\\u00".utf8)
        bytes.append(Self.hexDigits[Int(byte >> 4)])
        bytes.append(Self.hexDigits[Int(byte & 0x0F)])
      default: bytes.append(byte)
      }
    }
    bytes.append(UInt8(ascii: "\""))
  }
}

extension JSONValue {
  /// The value as compact JSON bytes.
  public var encoded: [UInt8] {
    var writer = JSONWriter(capacity: 64)
    writer.value(self)
    return writer.bytes
  }

  public var encodedString: String { String(decoding: encoded, as: UTF8.self) }
}

extension JSONWriter {
  /// The bytes written, in an allocation of their exact size: for output kept long (a session's
  /// cached state), where the writer's spare capacity would be held for nothing.
  public var compactedBytes: [UInt8] {
    [UInt8](unsafeUninitializedCapacity: bytes.count) { buffer, count in
      _ = buffer.initialize(from: bytes)
      count = bytes.count
    }
  }
}
