/// Decides from the framing headers alone whether a request body may be read, before any of it
/// is. Pure, so it is tested without sockets.
///
/// libmicrohttpd 0.9.75 reads only the first `Content-Length` and ignores `Content-Length` when
/// `Transfer-Encoding` is present; a proxy in front may pick differently (request smuggling). So
/// anything ambiguous is refused here rather than guessed.
enum RequestFraming: Equatable {
  /// Read the body: `expectedLength` bytes, or chunked (nil).
  case readBody(expectedLength: Int?)
  /// Answer at once with a problem; the body is never read and the connection is closed.
  case reject(status: Int, code: String, detail: String)

  static func decide(contentLengths: [String], transferEncodings: [String], maxBodyBytes: Int)
    -> RequestFraming
  {
    if !transferEncodings.isEmpty {
      if !contentLengths.isEmpty {
        return .reject(
          status: 400, code: "bad_content_length",
          detail: "Content-Length must not be sent together with Transfer-Encoding.")
      }
      // libmicrohttpd drops the whitespace before a value but not after it, and reads a body
      // as chunked only when the value is exactly `chunked`: `chunked ` would be waited for as
      // a body of unknown framing until the connection times out. RFC 9110 §5.5 makes the two
      // the same value, so the one libmicrohttpd cannot read is refused, clearly and at once.
      if transferEncodings.count == 1, transferEncodings[0] != trimmed(transferEncodings[0]),
        trimmed(transferEncodings[0]).equalsIgnoringASCIICase("chunked")
      {
        return .reject(
          status: 400, code: "bad_transfer_encoding",
          detail: "Send \"Transfer-Encoding: chunked\" with no whitespace after the value.")
      }
      guard transferEncodings.count == 1,
        transferEncodings[0].equalsIgnoringASCIICase("chunked")
      else {
        return .reject(
          status: 501, code: "unsupported_transfer_encoding",
          detail: "Only \"Transfer-Encoding: chunked\" is supported.")
      }
      return .readBody(expectedLength: nil)
    }
    guard let value = contentLengths.first else { return .readBody(expectedLength: 0) }
    if contentLengths.count > 1 {
      return .reject(
        status: 400, code: "bad_content_length",
        detail: "Content-Length must be sent at most once.")
    }
    switch decimal(in: value) {
    case .none:
      return .reject(
        status: 400, code: "bad_content_length",
        detail: "Content-Length must be a plain decimal number.")
    case .some(let length) where length > maxBodyBytes:
      return tooLarge(maxBodyBytes: maxBodyBytes)
    case .some(let length):
      return .readBody(expectedLength: length)
    }
  }

  static func tooLarge(maxBodyBytes: Int) -> RequestFraming {
    .reject(
      status: 413, code: "payload_too_large",
      detail: "The request body is larger than \(maxBodyBytes) bytes.")
  }

  /// `text`, without surrounding spaces and tabs, as a decimal number: digits only (at least
  /// one); values too big for Int saturate to Int.max (still "too large"). Read from its bytes:
  /// this runs for every request with a body.
  static func decimal(in text: String) -> Int? {
    var text = text
    return text.withUTF8 { bytes in
      var start = 0
      var end = bytes.count
      while start < end && (bytes[start] == UInt8(ascii: " ") || bytes[start] == 9) { start += 1 }
      while end > start && (bytes[end - 1] == UInt8(ascii: " ") || bytes[end - 1] == 9) { end -= 1 }
      guard start < end else { return nil }
      var value = 0
      for index in start..<end {
        let digit = bytes[index] &- UInt8(ascii: "0")
        guard digit < 10 else { return nil }
        let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
        let (sum, overflow2) = times10.addingReportingOverflow(Int(digit))
        value = (overflow1 || overflow2) ? Int.max : sum
      }
      return value
    }
  }

  /// Without leading and trailing spaces and tabs (on UTF-8: both are single bytes, and the
  /// Character view costs far more).
  private static func trimmed(_ text: String) -> Substring {
    let utf8 = text.utf8
    let isSpace: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
    guard let first = utf8.firstIndex(where: { !isSpace($0) }),
      let last = utf8.lastIndex(where: { !isSpace($0) })
    else { return "" }
    return text[first...last]
  }
}

extension Substring {
  func equalsIgnoringASCIICase(_ other: String) -> Bool {
    String(self).equalsIgnoringASCIICase(other)
  }
}
