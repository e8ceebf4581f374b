/// Why a document could not be read, and where reading stopped: the byte offset for programs,
/// line and column (both from 1, the column counted in bytes) for the people who fix the file.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
  public var offset: Int
  public var line: Int
  public var column: Int
  public var reason: String

  public init(offset: Int, line: Int, column: Int, reason: String) {
    self.offset = offset
    self.line = line
    self.column = column
    self.reason = reason
  }

  public var description: String { "\(reason) at line \(line), column \(column)" }
}

/// A strict RFC 8259 reader. It bounds nesting depth so that hostile input cannot exhaust the
/// stack: a request body is attacker-controlled, and recursion is the only unbounded cost here.
public struct JSONParser {
  public static let defaultMaxDepth = 64

  public static func parse(_ bytes: [UInt8], maxDepth: Int = defaultMaxDepth) throws(JSONParseError)
    -> JSONValue
  {
    try bytes.withUnsafeBufferPointer { (buffer) throws(JSONParseError) -> JSONValue in
      var reader = Reader(bytes: buffer, maxDepth: maxDepth)
      reader.skipWhitespace()
      let value = try reader.readValue(depth: 0)
      reader.skipWhitespace()
      guard reader.index == buffer.count else {
        throw reader.error("unexpected data after the value")
      }
      return value
    }
  }

  public static func parse(_ text: String, maxDepth: Int = defaultMaxDepth) throws(JSONParseError)
    -> JSONValue
  {
    try parse(Array(text.utf8), maxDepth: maxDepth)
  }
}

private struct Reader {
  let bytes: UnsafeBufferPointer<UInt8>
  let maxDepth: Int
  var index = 0

  init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
    self.bytes = bytes
    self.maxDepth = maxDepth
  }

  /// Lines are counted only here, on the way out, so that reading pays nothing for them.
  func error(_ reason: String) -> JSONParseError {
    let end = min(index, bytes.count)
    var line = 1
    var lineStart = 0
    for position in 0..<end where bytes[position] == UInt8(ascii: "\n") {
      line += 1
      lineStart = position + 1
    }
    return JSONParseError(offset: index, line: line, column: end - lineStart + 1, reason: reason)
  }

  mutating func skipWhitespace() {
    while index < bytes.count {
      switch bytes[index] {
      case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"): index += 1
      default: return
      }
    }
  }

  mutating func readValue(depth: Int) throws(JSONParseError) -> JSONValue {
    guard index < bytes.count else { throw error("unexpected end of input") }
    switch bytes[index] {
    case UInt8(ascii: "{"): return try readObject(depth: depth + 1)
    case UInt8(ascii: "["): return try readArray(depth: depth + 1)
    case UInt8(ascii: "\""): return .string(try readString())
    case UInt8(ascii: "t"):
      try expectWord("true")
      return .bool(true)
    case UInt8(ascii: "f"):
      try expectWord("false")
      return .bool(false)
    case UInt8(ascii: "n"):
      try expectWord("null")
      return .null
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try readNumber()
    default: throw error("unexpected character")
    }
  }

  mutating func expectWord(_ word: StaticString) throws(JSONParseError) {
    let count = word.utf8CodeUnitCount
    guard index + count <= bytes.count else { throw error("unexpected end of input") }
    let start = word.utf8Start
    for offset in 0..<count where bytes[index + offset] != start[offset] {
      throw error("invalid literal")
    }
    index += count
  }

  mutating func readObject(depth: Int) throws(JSONParseError) -> JSONValue {
    guard depth <= maxDepth else { throw error("nesting deeper than \(maxDepth) levels") }
    index += 1
    var members: [JSONObject.Member] = []
    // Keys seen, once the object is too wide for a linear scan to stay cheap.
    var seen: Set<String> = []
    skipWhitespace()
    if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
      index += 1
      return .object(JSONObject(members))
    }
    while true {
      skipWhitespace()
      guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
        throw error("expected a string key")
      }
      let keyStart = index
      let key = try readString()
      if members.count >= 16 {
        if seen.isEmpty { seen = Set(members.map(\.key)) }
        if !seen.insert(key).inserted {
          index = keyStart
          throw error("duplicate key '\(key.prefix(100))'")
        }
      } else if Self.contains(key, in: members) {
        index = keyStart
        throw error("duplicate key '\(key.prefix(100))'")
      }
      skipWhitespace()
      guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
        throw error("expected ':'")
      }
      index += 1
      skipWhitespace()
      let value = try readValue(depth: depth)
      members.append(JSONObject.Member(key: key, value: value))
      skipWhitespace()
      guard index < bytes.count else { throw error("unexpected end of input") }
      if bytes[index] == UInt8(ascii: ",") {
        index += 1
      } else if bytes[index] == UInt8(ascii: "}") {
        index += 1
        return .object(JSONObject(members))
      } else {
        throw error("expected ',' or '}'")
      }
    }
  }

  mutating func readArray(depth: Int) throws(JSONParseError) -> JSONValue {
    guard depth <= maxDepth else { throw error("nesting deeper than \(maxDepth) levels") }
    index += 1
    var elements: [JSONValue] = []
    skipWhitespace()
    if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
      index += 1
      return .array(elements)
    }
    while true {
      skipWhitespace()
      elements.append(try readValue(depth: depth))
      skipWhitespace()
      guard index < bytes.count else { throw error("unexpected end of input") }
      if bytes[index] == UInt8(ascii: ",") {
        index += 1
      } else if bytes[index] == UInt8(ascii: "]") {
        index += 1
        return .array(elements)
      } else {
        throw error("expected ',' or ']'")
      }
    }
  }

  /// A number written as plain digits within Int64 is an `int`; any other is kept as its text
  /// (`.number`), with its value as an exact integer when it is one, whatever its notation
  /// (`42.0`, `4.2e1`). Exactness is decided on the digits as written, never through floating
  /// point: `9007199254740993` stays itself and `1e-999` is not 0.
  mutating func readNumber() throws(JSONParseError) -> JSONValue {
    let start = index
    var isInteger = true
    let negative = bytes[index] == UInt8(ascii: "-")
    if negative { index += 1 }
    guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number") }
    let integerStart = index
    if bytes[index] == UInt8(ascii: "0") {
      index += 1
    } else {
      while index < bytes.count, isDigit(bytes[index]) { index += 1 }
    }
    let integerEnd = index
    var fraction = index..<index
    if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
      isInteger = false
      index += 1
      guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number") }
      let fractionStart = index
      while index < bytes.count, isDigit(bytes[index]) { index += 1 }
      fraction = fractionStart..<index
    }
    var exponent = 0
    if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
      isInteger = false
      index += 1
      var exponentNegative = false
      if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")
      {
        exponentNegative = bytes[index] == UInt8(ascii: "-")
        index += 1
      }
      guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number") }
      while index < bytes.count, isDigit(bytes[index]) {
        // Saturates: any exponent this large makes the number far outside Int64 (or zero).
        exponent = min(exponent * 10 + Int(bytes[index] - UInt8(ascii: "0")), 100_000)
        index += 1
      }
      if exponentNegative { exponent = -exponent }
    }
    let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
    // `-0` is kept as written: as an integer it would be written back as `0`.
    if isInteger, let value = Int(text), value != 0 || !negative { return .int(value) }
    let exact = ExactInteger.value(
      negative: negative, integerDigits: bytes[integerStart..<integerEnd],
      fractionDigits: bytes[fraction], exponent: exponent)
    if exact == nil {
      guard let value = Double(text), value.isFinite else { throw error("number out of range") }
    }
    return .number(JSONNumber(text: text, integerValue: exact))
  }

  /// Objects are small: a linear scan beats hashing until they are not (16 members).
  static func contains(_ key: String, in members: [JSONObject.Member]) -> Bool {
    members.contains { $0.key == key }
  }

  func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

  mutating func readString() throws(JSONParseError) -> String {
    index += 1
    let start = index
    var isASCII = true
    // Fast path: no escapes, so the bytes between the quotes are the string.
    while index < bytes.count {
      let byte = bytes[index]
      if byte == UInt8(ascii: "\"") {
        let slice = UnsafeBufferPointer(rebasing: bytes[start..<index])
        // ASCII is valid UTF-8 as it is; only other bytes need the (generic, slower) validation.
        if isASCII {
          index += 1
          return String(decoding: slice, as: UTF8.self)
        }
        guard let string = String(validating: slice, as: UTF8.self) else {
          throw error("invalid UTF-8 in string")
        }
        index += 1
        return string
      }
      if byte == UInt8(ascii: "\\") { break }
      if byte < 0x20 { throw error("control character in string") }
      if byte >= 0x80 { isASCII = false }
      index += 1
    }
    var scalars = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
    while index < bytes.count {
      let byte = bytes[index]
      switch byte {
      case UInt8(ascii: "\""):
        index += 1
        guard let string = String(validating: scalars, as: UTF8.self) else {
          throw error("invalid UTF-8 in string")
        }
        return string
      case UInt8(ascii: "\\"):
        index += 1
        try readEscape(into: &scalars)
      case 0..<0x20:
        throw error("control character in string")
      default:
        scalars.append(byte)
        index += 1
      }
    }
    throw error("unterminated string")
  }

  mutating func readEscape(into output: inout [UInt8]) throws(JSONParseError) {
    guard index < bytes.count else { throw error("unterminated escape") }
    let byte = bytes[index]
    index += 1
    switch byte {
    case UInt8(ascii: "\""): output.append(UInt8(ascii: "\""))
    case UInt8(ascii: "\\"): output.append(UInt8(ascii: "\\"))
    case UInt8(ascii: "/"): output.append(UInt8(ascii: "/"))
    case UInt8(ascii: "b"): output.append(0x08)
    case UInt8(ascii: "f"): output.append(0x0C)
    case UInt8(ascii: "n"): output.append(0x0A)
    case UInt8(ascii: "r"): output.append(0x0D)
    case UInt8(ascii: "t"): output.append(0x09)
    case UInt8(ascii: "u"):
      var code = try readHex4()
      if (0xD800..<0xDC00).contains(code) {
        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
          bytes[index + 1] == UInt8(ascii: "u")
        else { throw error("unpaired surrogate") }
        index += 2
        let low = try readHex4()
        guard (0xDC00..<0xE000).contains(low) else { throw error("unpaired surrogate") }
        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
      } else if (0xDC00..<0xE000).contains(code) {
        throw error("unpaired surrogate")
      }
      guard let scalar = Unicode.Scalar(code) else { throw error("invalid escape") }
      output.append(contentsOf: Array(String(Character(scalar)).utf8))
    default:
      throw error("invalid escape")
    }
  }

  mutating func readHex4() throws(JSONParseError) -> UInt32 {
    guard index + 4 <= bytes.count else { throw error("unterminated escape") }
    var value: UInt32 = 0
    for _ in 0..<4 {
      let byte = bytes[index]
      let digit: UInt32
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
      default: throw error("invalid hex digit")
      }
      value = value << 4 | digit
      index += 1
    }
    return value
  }
}
