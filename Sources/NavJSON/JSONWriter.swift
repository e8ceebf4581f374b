#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Writes JSON straight into a byte buffer. Commas are placed by the writer, so callers only say
/// what comes next; this avoids building a `JSONValue` tree for every response.
///
/// The buffer is the writer's own memory, written through a pointer: an `[UInt8]` checks its
/// uniqueness and capacity on every append, which cost about 90 instructions a member name (a
/// state is some 40 of them). The writer cannot be copied, so nothing else can see the buffer
/// while it is written; `bytes` hands out a copy of exactly the size written.
public struct JSONWriter: ~Copyable {
  @usableFromInline var start: UnsafeMutablePointer<UInt8>
  @usableFromInline var count = 0
  @usableFromInline var capacity: Int
  /// Whether the last thing written ended a value, so that the next element needs a comma first.
  /// (After `{`, `[` or a member name it does not; after a value, `}` or `]` it does.)
  @usableFromInline var afterValue = false

  public init(capacity: Int = 512) {
    let buffer = WriterBufferCache.take(Swift.max(capacity, 16))
    self.capacity = buffer.capacity
    start = buffer.start.assumingMemoryBound(to: UInt8.self)
  }

  deinit { WriterBufferCache.give(UnsafeMutableRawPointer(start), capacity: capacity) }

  /// What has been written, in an array of exactly its size.
  public var bytes: [UInt8] { [UInt8](UnsafeBufferPointer(start: start, count: count)) }

  /// Ends the writer and hands over its buffer, to be given back with
  /// ``releaseJSONWriterBuffer(_:_:)``: where it starts, how many bytes were written, and its
  /// capacity. Saves copying what was written when its reader can take the buffer as it is.
  public consuming func takeBuffer() -> (start: UnsafeMutableRawPointer, count: Int, capacity: Int)
  {
    let buffer = (UnsafeMutableRawPointer(start), count, capacity)
    discard self
    return buffer
  }

  /// How many bytes have been written.
  public var byteCount: Int { count }

  @inlinable
  public mutating func beginObject() {
    reserve(2)
    separate()
    put(UInt8(ascii: "{"))
    afterValue = false
  }

  @inlinable
  public mutating func endObject() {
    reserve(1)
    put(UInt8(ascii: "}"))
    afterValue = true
  }

  @inlinable
  public mutating func beginArray() {
    reserve(2)
    separate()
    put(UInt8(ascii: "["))
    afterValue = false
  }

  @inlinable
  public mutating func endArray() {
    reserve(1)
    put(UInt8(ascii: "]"))
    afterValue = true
  }

  /// Writes a member name known when compiling (it must need no escaping): copied as it is,
  /// with no check. The next value written belongs to it.
  @inlinable
  public mutating func key(_ name: StaticString) {
    let length = name.utf8CodeUnitCount
    reserve(length + 4)
    separate()
    put(UInt8(ascii: "\""))
    put(name.utf8Start, count: length)
    put(UInt8(ascii: "\""))
    put(UInt8(ascii: ":"))
    afterValue = false
  }

  /// Writes a member name made at run time, escaped as needed.
  public mutating func key(named name: String) {
    reserve(1)
    separate()
    appendQuoted(name)
    reserve(1)
    put(UInt8(ascii: ":"))
    afterValue = false
  }

  /// Writes a member name that almost surely needs no escaping (see `plainString(_:)`).
  public mutating func key(plain name: String) {
    plainString(name)
    reserve(1)
    put(UInt8(ascii: ":"))
    afterValue = false
  }

  public mutating func string(_ value: String) {
    reserve(1)
    separate()
    appendQuoted(value)
  }

  /// A string the caller knows needs no escaping (ASCII letters, digits and punctuation other
  /// than quote and backslash), written from bytes without building a `String`.
  @inlinable
  public mutating func plainString(_ text: UnsafeBufferPointer<UInt8>) {
    reserve(text.count + 3)
    separate()
    put(UInt8(ascii: "\""))
    if let base = text.baseAddress { put(base, count: text.count) }
    put(UInt8(ascii: "\""))
  }

  /// A string known when compiling that needs no escaping, copied as it is.
  @inlinable
  public mutating func plainString(_ text: StaticString) {
    plainString(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
  }

  /// A string that almost surely needs no escaping, such as a name validated when it was loaded
  /// (letters, digits and `_`): copied from its own bytes in one piece once checked, and escaped
  /// like any other string if it needs it after all.
  public mutating func plainString(_ text: String) {
    var text = text
    let written = text.withUTF8 { bytes in
      var index = 0
      while index < bytes.count {
        let byte = bytes[index]
        if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { return false }
        index &+= 1
      }
      plainString(bytes)
      return true
    }
    if !written { string(text) }
  }

  public mutating func int(_ value: Int) {
    reserve(21)
    separate()
    appendInteger(value)
  }

  public mutating func double(_ value: Double) {
    reserve(1)
    separate()
    if value.isFinite {
      append(contentsOf: value.description.utf8)
    } else {
      reserve(4)
      put("null")
    }
  }

  /// A number exactly as it was written in the JSON it was read from.
  public mutating func number(_ value: JSONNumber) {
    reserve(value.text.utf8.count + 1)
    separate()
    append(contentsOf: value.text.utf8)
  }

  public mutating func bool(_ value: Bool) {
    reserve(6)
    separate()
    put(value ? "true" : "false")
  }

  public mutating func null() {
    reserve(5)
    separate()
    put("null")
  }

  /// Members of the open object that are already encoded (`"a":1,"b":2`), written as they are.
  public mutating func members(_ encoded: [UInt8]) {
    raw(encoded)
  }

  /// Members of the open object already encoded elsewhere, copied from there.
  public mutating func members(_ encoded: UnsafeBufferPointer<UInt8>) {
    reserve(encoded.count + 1)
    separate()
    if let base = encoded.baseAddress { put(base, count: encoded.count) }
  }

  /// Members of the open object that were written earlier into this writer (`count` bytes from
  /// `offset`), written again.
  public mutating func repeatMembers(at offset: Int, count length: Int) {
    precondition(offset >= 0 && length >= 0 && offset + length <= count, "written before")
    reserve(length + 1)
    separate()
    // After `reserve`, which may move the buffer; the copy lies after the source.
    put(start + offset, count: length)
  }

  /// Bytes that are already one JSON value.
  public mutating func raw(_ encoded: [UInt8]) {
    reserve(encoded.count + 1)
    separate()
    encoded.withUnsafeBufferPointer { source in
      if let base = source.baseAddress { put(base, count: source.count) }
    }
  }

  public mutating func value(_ value: JSONValue) {
    switch value {
    case .null: null()
    case .bool(let flag): bool(flag)
    case .int(let number): int(number)
    case .double(let number): double(number)
    case .number(let text): number(text)
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

  // MARK: The buffer. Every `put` is preceded by a `reserve` that covers it.

  /// Makes room for `extra` more bytes.
  @inlinable
  mutating func reserve(_ extra: Int) {
    if count + extra > capacity { grow(toHold: count + extra) }
  }

  @usableFromInline
  mutating func grow(toHold needed: Int) {
    let newCapacity = Swift.max(capacity * 2, needed)
    guard let moved = realloc(start, newCapacity) else {
      // As on any of Swift's own allocations: no caller could go on without the room.
      fatalError("out of memory for \(newCapacity) bytes")
    }
    start = moved.assumingMemoryBound(to: UInt8.self)
    capacity = newCapacity
  }

  @inlinable
  mutating func put(_ byte: UInt8) {
    start[count] = byte
    count += 1
  }

  @inlinable
  mutating func put(_ source: UnsafePointer<UInt8>, count length: Int) {
    (start + count).initialize(from: source, count: length)
    count += length
  }

  /// The caller has reserved room for `text`.
  @inlinable
  mutating func put(_ text: StaticString) {
    put(text.utf8Start, count: text.utf8CodeUnitCount)
  }

  /// Appends a sequence whose length is not known ahead (a number's description), reserving
  /// as it goes.
  mutating func append<Bytes: Sequence<UInt8>>(contentsOf source: Bytes) {
    reserve(source.underestimatedCount)
    for byte in source {
      reserve(1)
      put(byte)
    }
  }

  /// Before an element: a comma if a value precedes it. Every element is a value once written.
  /// The caller has reserved a byte for it.
  @inlinable
  mutating func separate() {
    if afterValue { put(UInt8(ascii: ",")) }
    afterValue = true
  }

  /// The caller has reserved 21 bytes (a sign and 20 digits).
  private mutating func appendInteger(_ value: Int) {
    guard value >= 0 else {
      append(contentsOf: String(value).utf8)
      return
    }
    count += Self.writeDigits(of: value, to: start + count)
  }

  /// Writes the decimal digits of a non-negative number at `output` (room for 20 digits),
  /// returning how many were written.
  static func writeDigits(of value: Int, to output: UnsafeMutablePointer<UInt8>) -> Int {
    precondition(value >= 0, "digits of a negative number")
    if value < 10 {
      output[0] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value)
      return 1
    }
    // Counted by comparison (a number has at most 19 digits), then written from the end.
    var length = 2
    var bound = 100
    while length < 19 && value >= bound {
      length &+= 1
      bound &*= 10
    }
    var remaining = value
    var index = length
    while index > 0 {
      index &-= 1
      let (quotient, digit) = remaining.quotientAndRemainder(dividingBy: 10)
      output[index] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: digit)
      remaining = quotient
    }
    return length
  }

  /// Appends the decimal digits of a non-negative number, with no allocation.
  public static func appendDigits(of value: Int, to output: inout [UInt8]) {
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
      let length = writeDigits(of: value, to: digits.baseAddress!)
      output.append(contentsOf: UnsafeBufferPointer(rebasing: digits[..<length]))
    }
  }

  private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

  private mutating func appendQuoted(_ text: String) {
    // Native strings (every one this service builds or decodes) lend their bytes in place.
    let lent: Void? = text.utf8.withContiguousStorageIfAvailable { appendQuoted(utf8: $0) }
    if lent == nil {
      let bytes = Array(text.utf8)
      bytes.withUnsafeBufferPointer { appendQuoted(utf8: $0) }
    }
  }

  /// Copies the bytes while they need no escaping (ids, routes, keys: all of them, mostly), then
  /// escapes the rest.
  private mutating func appendQuoted(utf8: UnsafeBufferPointer<UInt8>) {
    reserve(utf8.count + 2)
    put(UInt8(ascii: "\""))
    let output = start + count
    var copied = 0
    while copied < utf8.count {
      let byte = utf8[copied]
      if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { break }
      output[copied] = byte
      copied += 1
    }
    count += copied
    if copied < utf8.count {
      // At most six bytes for each one left (`\u00XX`), and the closing quote.
      reserve((utf8.count - copied) * 6 + 1)
      for byte in utf8[copied...] { putEscaped(byte) }
    }
    put(UInt8(ascii: "\""))
  }

  /// The caller has reserved six bytes.
  private mutating func putEscaped(_ byte: UInt8) {
    switch byte {
    case UInt8(ascii: "\""), UInt8(ascii: "\\"):
      put(UInt8(ascii: "\\"))
      put(byte)
    case 0x0A:
      put(UInt8(ascii: "\\"))
      put(UInt8(ascii: "n"))
    case 0x0D:
      put(UInt8(ascii: "\\"))
      put(UInt8(ascii: "r"))
    case 0x09:
      put(UInt8(ascii: "\\"))
      put(UInt8(ascii: "t"))
    case 0..<0x20:
      put(UInt8(ascii: "\\"))
      put(UInt8(ascii: "u"))
      put(UInt8(ascii: "0"))
      put(UInt8(ascii: "0"))
      put(Self.hexDigits[Int(byte >> 4)])
      put(Self.hexDigits[Int(byte & 0x0F)])
    default: put(byte)
    }
  }
}

/// Gives back a buffer from ``JSONWriter/takeBuffer()``.
public func releaseJSONWriterBuffer(_ start: UnsafeMutableRawPointer, _ capacity: Int) {
  WriterBufferCache.give(start, capacity: capacity)
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
