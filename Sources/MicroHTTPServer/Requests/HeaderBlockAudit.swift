/// Checks a request's line and header fields byte by byte, as received, for what
/// libmicrohttpd 0.9.75 lets through or silently rewrites, and what a proxy in front could read
/// differently (request smuggling):
///
/// - whitespace between a field name and its colon (MHD keeps `Content-Length ` as a field of
///   its own, so the body is read as the next request);
/// - obs-fold (MHD appends the continuation to the field *name*);
/// - a bare LF as line end, NUL or any other control byte in the target or a field (MHD reads
///   target and fields as C strings, so `/healthz\0/../x` is served as `/healthz`).
///
/// MHD parses the header block in place, inside its read buffer: it overwrites each CR, LF,
/// the space before the version and each field's colon with NUL, and hands out pointers into
/// the block. Given those pointers (as offsets) and the lengths MHD reports, the bytes of a
/// well-formed request are fully determined; anything else shows as a mismatch here.
enum HeaderBlockAudit {
  struct Span: Equatable {
    var offset: Int
    var length: Int
  }

  struct Field: Equatable {
    var name: Span
    var value: Span
  }

  /// The reason the block is malformed, or nil when it is a strict HTTP/1.1 header block.
  ///
  /// - block: from the first byte of the method to the end of the empty line after the fields.
  /// - method, target, version: the request line's parts (`target` as received, query included).
  /// - targetText: the target as it was before MHD split its query in place, which it does by
  ///   writing NULs into the block (so the target's own bytes are checked here, not the block's).
  /// - fields: the header fields in the order received.
  static func problem(
    in block: UnsafeRawBufferPointer, method: Span, target: Span,
    targetText: String, version: Span, fields: [Field]
  ) -> String? {
    // The table taken once for the whole block, rather than through its lazy global per range.
    Class.table.withUnsafeBufferPointer { table in
      problem(
        in: block, method: method, target: target, targetText: targetText, version: version,
        fields: fields, table: table)
    }
  }

  private static func problem(
    in block: UnsafeRawBufferPointer, method: Span, target: Span,
    targetText: String, version: Span, fields: [Field], table: UnsafeBufferPointer<UInt8>
  ) -> String? {
    func all(_ range: Range<Int>, in block: UnsafeRawBufferPointer, are flag: UInt8) -> Bool {
      HeaderBlockAudit.all(range, in: block, are: flag, table: table)
    }
    func byte(_ offset: Int) -> UInt8? {
      offset >= 0 && offset < block.count ? block[offset] : nil
    }
    func isEnd(_ offset: Int) -> Bool { byte(offset) == 0 && byte(offset + 1) == 0 }
    func inside(_ span: Span) -> Bool {
      span.offset >= 0 && span.length >= 0 && span.offset + span.length <= block.count
    }

    guard method.offset == 0, inside(method), inside(target), inside(version) else {
      return "the request line could not be read"
    }
    guard target.offset == method.length + 1, byte(method.length) == 0 else {
      return "the method must be followed by exactly one space"
    }
    var targetText = targetText
    let targetIsClean = targetText.withUTF8 { bytes in
      bytes.count == target.length
        && all(0..<bytes.count, in: UnsafeRawBufferPointer(bytes), are: Class.target)
    }
    guard targetIsClean else {
      return "the request target contains a space or a control byte"
    }
    guard version.offset == target.offset + target.length + 1, byte(version.offset - 1) == 0
    else {
      return "the request target contains a space or a control byte"
    }
    var next = version.offset + version.length
    guard isEnd(next) else { return "the request line must end with CRLF" }
    next += 2

    for field in fields {
      guard inside(field.name), inside(field.value), field.name.offset == next else {
        return "a field line is folded (obs-fold) or does not end with CRLF"
      }
      let nameEnd = field.name.offset + field.name.length
      guard field.name.length > 0, all(field.name.offset..<nameEnd, in: block, are: Class.token)
      else {
        return "a field name contains whitespace or a character that is not allowed"
      }
      let colon = nameEnd
      guard byte(colon) == 0, field.value.offset > colon,
        all((colon + 1)..<field.value.offset, in: block, are: Class.blank)
      else {
        return "a field name must be followed directly by its colon"
      }
      next = field.value.offset + field.value.length
      guard all(field.value.offset..<next, in: block, are: Class.fieldValue) else {
        return "a field value contains NUL or another control byte"
      }
      guard isEnd(next) else {
        return
          "a field value contains NUL or another control byte, or its line does not end with CRLF"
      }
      next += 2
    }
    guard isEnd(next), next + 2 == block.count else {
      return "the header block does not end with an empty CRLF line"
    }
    return nil
  }

  /// Bit flags per byte value, worked out once from the predicates below, so that the loops over
  /// a request's bytes do one table lookup per byte.
  private enum Class {
    static let token: UInt8 = 1
    static let target: UInt8 = 2
    static let fieldValue: UInt8 = 4
    static let blank: UInt8 = 8

    static let table: [UInt8] = (0...255).map { value in
      let byte = UInt8(value)
      var flags: UInt8 = 0
      if isTokenByte(byte) { flags |= token }
      if isTargetByte(byte) { flags |= target }
      if isFieldValueByte(byte) { flags |= fieldValue }
      if byte == 0x20 || byte == 0x09 { flags |= blank }
      return flags
    }
  }

  /// Whether every byte of `block` in `range` (already known to lie inside it) has `flag`.
  private static func all(
    _ range: Range<Int>, in block: UnsafeRawBufferPointer, are flag: UInt8,
    table: UnsafeBufferPointer<UInt8>
  ) -> Bool {
    guard let base = block.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
      return range.isEmpty
    }
    var offset = range.lowerBound
    if flag == Class.token {
      // Field names are mostly letters and dashes: eight such bytes at a time need no table.
      while offset + 8 <= range.upperBound,
        isLettersAndDashes(UnsafeRawPointer(base + offset).loadUnaligned(as: UInt64.self))
      {
        offset += 8
      }
    } else if flag == Class.fieldValue || flag == Class.target {
      // Eight bytes at a time while none of them is a control byte, DEL or (in a target) a
      // space: such a word needs no table. From the first word that has one, byte by byte (a
      // field value may hold a tab).
      let below: UInt64 = flag == Class.target ? 0x2121_2121_2121_2121 : 0x2020_2020_2020_2020
      while offset + 8 <= range.upperBound {
        let word = UnsafeRawPointer(base + offset).loadUnaligned(as: UInt64.self)
        if hasByte(in: word, below: below)
          || hasByte(in: word ^ 0x7F7F_7F7F_7F7F_7F7F, below: 0x0101_0101_0101_0101)
        {
          break
        }
        offset += 8
      }
    }
    for offset in offset..<range.upperBound where table[Int(base[offset])] & flag == 0 {
      return false
    }
    return true
  }

  /// Whether each of the eight bytes of `word` is an ASCII letter or `-`, exactly (no carry
  /// crosses a byte: every byte is below 0x80 before anything is added to it).
  @inline(__always)
  static func isLettersAndDashes(_ word: UInt64) -> Bool {
    let high: UInt64 = 0x8080_8080_8080_8080
    guard word & high == 0 else { return false }
    let folded = word | 0x2020_2020_2020_2020
    // High bit of each byte: at least "a", and past "z" (0x80 - 0x61 and 0x80 - 0x7B added).
    let atLeastA = (folded &+ 0x1F1F_1F1F_1F1F_1F1F) & high
    let pastZ = (folded &+ 0x0505_0505_0505_0505) & high
    // A dash is a byte of `word` itself (folding would make CR one) equal to 0x2D: zero after
    // the XOR, found exactly as a byte whose low seven bits plus 0x7F do not carry into bit 7.
    let other = word ^ 0x2D2D_2D2D_2D2D_2D2D
    let nonzero = ((other & 0x7F7F_7F7F_7F7F_7F7F) &+ 0x7F7F_7F7F_7F7F_7F7F | other) & high
    return (atLeastA & ~pastZ) | (~nonzero & high) == high
  }

  /// Whether a byte of `word` is below the byte repeated in `limit` (at most 0x80): exact for
  /// whether there is one, though not for which (Hacker's Delight, "hasless").
  @inline(__always)
  static func hasByte(in word: UInt64, below limit: UInt64) -> Bool {
    (word &- limit) & ~word & 0x8080_8080_8080_8080 != 0
  }

  /// RFC 9110 tchar: the characters of a field name.
  static func isTokenByte(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"):
      return true
    // ! # $ % & ' * + - . ^ _ ` | ~
    case 0x21, 0x23...0x27, 0x2A, 0x2B, 0x2D, 0x2E, 0x5E, 0x5F, 0x60, 0x7C, 0x7E:
      return true
    default:
      return false
    }
  }

  /// Visible ASCII and UTF-8 bytes; no space, no control byte.
  static func isTargetByte(_ byte: UInt8) -> Bool { byte > 0x20 && byte != 0x7F }

  /// Field values: horizontal tab, space, visible ASCII and UTF-8 bytes; no other control byte.
  static func isFieldValueByte(_ byte: UInt8) -> Bool {
    byte == 0x09 || (byte >= 0x20 && byte != 0x7F)
  }
}
