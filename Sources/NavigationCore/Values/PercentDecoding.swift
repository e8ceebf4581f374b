/// Decodes `%XX` escapes (and, in query items, `+` as a space). Nil for a broken escape or for
/// bytes that are not UTF-8.
public func percentDecoded(_ text: some StringProtocol, plusAsSpace: Bool = false) -> String? {
  var bytes: [UInt8] = []
  bytes.reserveCapacity(text.utf8.count)
  var iterator = text.utf8.makeIterator()
  while let byte = iterator.next() {
    switch byte {
    case UInt8(ascii: "%"):
      guard let high = iterator.next().flatMap(hexValue),
        let low = iterator.next().flatMap(hexValue)
      else { return nil }
      bytes.append(high << 4 | low)
    case UInt8(ascii: "+") where plusAsSpace:
      bytes.append(UInt8(ascii: " "))
    default:
      bytes.append(byte)
    }
  }
  return String(validating: bytes, as: UTF8.self)
}

private func hexValue(_ byte: UInt8) -> UInt8? {
  switch byte {
  case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
  case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
  case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
  default: nil
  }
}
