/// Percent-decoding (RFC 3986) of raw path segments and query items.
enum PercentDecoding {
  /// Decodes "%XX" escapes; an invalid escape is kept as written. With `plusAsSpace`, "+" becomes
  /// a space (the form-encoding convention used in query strings). Bytes that are not valid
  /// UTF-8 after decoding become U+FFFD.
  static func decode<Bytes: Collection>(_ bytes: Bytes, plusAsSpace: Bool) -> String
  where Bytes.Element == UInt8 {
    let percent = UInt8(ascii: "%")
    let plus = UInt8(ascii: "+")
    if !bytes.contains(where: { $0 == percent || (plusAsSpace && $0 == plus) }) {
      return String(decoding: bytes, as: UTF8.self)
    }
    var output: [UInt8] = []
    output.reserveCapacity(bytes.count)
    var index = bytes.startIndex
    while index != bytes.endIndex {
      let byte = bytes[index]
      if byte == percent {
        let first = bytes.index(after: index)
        if first != bytes.endIndex {
          let second = bytes.index(after: first)
          if second != bytes.endIndex, let high = hexValue(bytes[first]),
            let low = hexValue(bytes[second])
          {
            output.append(high << 4 | low)
            index = bytes.index(after: second)
            continue
          }
        }
        output.append(byte)
      } else if plusAsSpace && byte == plus {
        output.append(UInt8(ascii: " "))
      } else {
        output.append(byte)
      }
      index = bytes.index(after: index)
    }
    return String(decoding: output, as: UTF8.self)
  }

  private static func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
    default: return nil
    }
  }
}
