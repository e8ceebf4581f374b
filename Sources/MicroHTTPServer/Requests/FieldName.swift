/// Header field names, compared as HTTP compares them: without regard to ASCII case.
enum FieldName {
  /// Whether two field names are equal but for ASCII case: eight bytes at a time, each byte with
  /// its 0x20 bit set. That folds the case of letters. Of the other token characters (RFC 9110)
  /// it confuses only `^` with `~`, which no name asked for holds; names are read only
  /// once the header block audit has passed them.
  static func equal(
    _ received: UnsafePointer<UInt8>, _ wanted: UnsafePointer<UInt8>, count: Int
  ) -> Bool {
    let fold: UInt64 = 0x2020_2020_2020_2020
    var offset = 0
    while offset + 8 <= count {
      let left = UnsafeRawPointer(received + offset).loadUnaligned(as: UInt64.self)
      let right = UnsafeRawPointer(wanted + offset).loadUnaligned(as: UInt64.self)
      guard left | fold == right | fold else { return false }
      offset += 8
    }
    while offset < count {
      guard received[offset] | 0x20 == wanted[offset] | 0x20 else { return false }
      offset += 1
    }
    return true
  }
}
