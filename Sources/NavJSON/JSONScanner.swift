/// Reads the plain subset of JSON straight from bytes, token by token, for the request bodies
/// that arrive on every call: strings without escapes and in ASCII, integers without fraction or
/// exponent, `true`, `false`, `null`. Anything else (an escape, a non-ASCII byte, a fraction,
/// malformed input) makes a read return nil, and the caller falls back to ``JSONParser``, which
/// reads everything and words every refusal. So the scanner never refuses anything itself.
public struct JSONScanner {
  private let bytes: UnsafeBufferPointer<UInt8>
  public private(set) var index = 0

  public init(_ bytes: UnsafeBufferPointer<UInt8>) {
    self.bytes = bytes
  }

  public var isAtEnd: Bool {
    mutating get {
      skipWhitespace()
      return index == bytes.count
    }
  }

  /// Consumes `byte` (after whitespace) if it comes next.
  public mutating func take(_ byte: UInt8) -> Bool {
    skipWhitespace()
    guard index < bytes.count, bytes[index] == byte else { return false }
    index += 1
    return true
  }

  /// The next byte after whitespace, not consumed.
  public mutating func peek() -> UInt8? {
    skipWhitespace()
    return index < bytes.count ? bytes[index] : nil
  }

  /// A string's bytes, without its quotes, if it is plain (ASCII, no escape, no control byte).
  public mutating func plainStringBytes() -> UnsafeBufferPointer<UInt8>? {
    guard take(UInt8(ascii: "\"")) else { return nil }
    let start = index
    while index < bytes.count {
      let byte = bytes[index]
      if byte == UInt8(ascii: "\"") {
        index += 1
        return UnsafeBufferPointer(rebasing: bytes[start..<(index - 1)])
      }
      guard byte >= 0x20, byte < 0x80, byte != UInt8(ascii: "\\") else { return nil }
      index += 1
    }
    return nil
  }

  public mutating func plainString() -> String? {
    plainStringBytes().map { String(decoding: $0, as: UTF8.self) }
  }

  /// An integer of at most 18 digits (so it cannot overflow), no leading zero, no fraction or
  /// exponent.
  public mutating func plainInt() -> Int? {
    skipWhitespace()
    var position = index
    let negative = position < bytes.count && bytes[position] == UInt8(ascii: "-")
    if negative { position += 1 }
    let first = position
    var value = 0
    while position < bytes.count, bytes[position] >= UInt8(ascii: "0"),
      bytes[position] <= UInt8(ascii: "9")
    {
      // Past 18 digits the value could overflow: leave it to the full parser.
      guard position - first < 18 else { return nil }
      value = value * 10 + Int(bytes[position] - UInt8(ascii: "0"))
      position += 1
    }
    let digits = position - first
    guard digits >= 1, digits <= 18, digits == 1 || bytes[first] != UInt8(ascii: "0"),
      !(negative && value == 0)
    else {
      return nil
    }
    if position < bytes.count {
      switch bytes[position] {
      case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): return nil
      default: break
      }
    }
    index = position
    return negative ? -value : value
  }

  /// `true` or `false`.
  public mutating func bool() -> Bool? {
    if literal("true") { return true }
    if literal("false") { return false }
    return nil
  }

  public mutating func null() -> Bool { literal("null") }

  /// One plain value: a plain string, a plain integer, a boolean or null.
  public mutating func plainValue() -> JSONValue? {
    switch peek() {
    case UInt8(ascii: "\"")?: return plainString().map(JSONValue.string)
    case UInt8(ascii: "t")?, UInt8(ascii: "f")?: return bool().map(JSONValue.bool)
    case UInt8(ascii: "n")?: return null() ? .null : nil
    default: return plainInt().map(JSONValue.int)
    }
  }

  private mutating func literal(_ word: StaticString) -> Bool {
    skipWhitespace()
    let count = word.utf8CodeUnitCount
    guard bytes.count - index >= count else { return false }
    for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] {
      return false
    }
    // "truex" is not a literal; the caller's next read then fails and it falls back.
    index += count
    return true
  }

  private mutating func skipWhitespace() {
    while index < bytes.count {
      switch bytes[index] {
      case 0x20, 0x09, 0x0A, 0x0D: index += 1
      default: return
      }
    }
  }
}

extension UnsafeBufferPointer<UInt8> {
  /// Whether these bytes spell `text` exactly.
  public func spells(_ text: StaticString) -> Bool {
    guard count == text.utf8CodeUnitCount else { return false }
    for offset in 0..<count where self[offset] != text.utf8Start[offset] { return false }
    return true
  }
}
