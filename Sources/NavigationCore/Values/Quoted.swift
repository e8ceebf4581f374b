/// Client input as it appears in an error's detail: in single quotes, and at most
/// ``quotedInputLimit`` bytes of it (cut on a character boundary, marked with "…"), so that a
/// 1 MB route name does not come back as a 1 MB refusal.
public func quoted(_ input: some StringProtocol) -> String {
  "'" + truncatedInput(input) + "'"
}

/// The most bytes of one client input an error's detail repeats.
public let quotedInputLimit = 200

public func truncatedInput(_ input: some StringProtocol) -> String {
  guard input.utf8.count > quotedInputLimit else { return String(input) }
  let bytes = Array(input.utf8)
  var end = quotedInputLimit
  // Back off to the start of a character, never splitting a UTF-8 sequence.
  while end > 0, (bytes[end] & 0xC0) == 0x80 { end -= 1 }
  return String(decoding: bytes[..<end], as: UTF8.self) + "…"
}
