/// The keys of the app's own backend (`--backend-key-file`): a request whose bearer token is one
/// of them is a backend call. Kept as SHA-256 digests, and compared with every key in constant
/// time, so neither the keys nor which one matched can be read from the memory or the timing.
public struct BackendKeys: Sendable {
  /// Why a key file was refused, naming the line.
  public struct Invalid: Error, CustomStringConvertible {
    public var description: String
  }

  private let digests: [[UInt8]]

  /// The keys of a key file: each non-empty line, without its line end, is one key.
  public init(fileContents: [UInt8]) throws(Invalid) {
    var digests: [[UInt8]] = []
    var number = 0
    for line in fileContents.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
    {
      number += 1
      var key = Array(line)
      if key.last == UInt8(ascii: "\r") { key.removeLast() }
      guard !key.isEmpty else { continue }
      try Self.check(key, line: number)
      digests.append(SHA256.hash(key))
    }
    guard !digests.isEmpty else { throw Invalid(description: "it holds no key") }
    self.digests = digests
  }

  /// At least 32 printable ASCII characters and no space, and not the shape of a session token
  /// (43 base64url characters): a key must never be taken for a token, nor a token for a key.
  private static func check(_ key: [UInt8], line: Int) throws(Invalid) {
    guard key.count >= 32 else {
      throw Invalid(description: "line \(line): a key has at least 32 characters")
    }
    guard key.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
      throw Invalid(
        description: "line \(line): a key is printable ASCII without spaces or tabs")
    }
    let looksLikeToken = key.withUnsafeBufferPointer { SecureRandom.isWellFormedToken($0) }
    guard !looksLikeToken else {
      throw Invalid(
        description:
          "line \(line): this key has the shape of a session token (43 base64url characters); use another length or a character outside base64url"
      )
    }
  }

  public var count: Int { digests.count }

  /// Whether `token` is one of the keys. Every key is compared, whichever matches.
  func matches(_ token: UnsafeBufferPointer<UInt8>) -> Bool {
    let digest = SHA256.hash(token)
    var matched: UInt8 = 0
    for key in digests {
      var difference: UInt8 = 0
      for index in 0..<32 { difference |= key[index] ^ digest[index] }
      matched |= difference == 0 ? 1 : 0
    }
    return matched != 0
  }
}
