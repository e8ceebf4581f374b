import Synchronization

/// Handoff codes: ten characters a person can read off one screen and type on another, each
/// standing for one share's token until it is redeemed once or expires (docs/shares.md).
///
/// Kept in memory only: a code stands for a token, and the server never writes a token down,
/// so codes do not outlive a restart (the shares do). Failed redemptions are counted per client
/// address: more than ``maxFailures`` in a minute are refused (429), so that 31^10 codes cannot
/// be walked.
package final class HandoffCodes: Sendable {
  /// No 0, 1, I, L, O: what a person reads wrong.
  package static let alphabet = Array("23456789ABCDEFGHJKMNPQRSTUVWXYZ".utf8)
  package static let length = 10
  package static let lifetimeSeconds: Int64 = 300
  package static let maxFailures = 10
  package static let failureWindowMilliseconds: Int64 = 60_000

  /// What a code stands for.
  package struct Grant: Sendable {
    package var session: SessionID
    package var share: String
    package var token: String
    package var expiresAt: Int64
  }

  package enum Redemption: Sendable {
    case redeemed(Grant)
    case unknown
    /// Too many failures from this address: try again in `retryAfterSeconds`.
    case throttled(retryAfterSeconds: Int)
  }

  private struct Failures {
    var windowStart: Int64
    var count: Int
  }

  private struct Book {
    var grants: [String: Grant] = [:]
    var failures: [String: Failures] = [:]
    var lastSweep: Int64 = 0
  }

  private let book = Mutex(Book())

  package init() {}

  /// A new code for `grant`, valid until the grant's expiry.
  package func issue(_ grant: Grant) -> String {
    book.withLock { book in
      while true {
        let code = Self.randomCode()
        guard book.grants[code] == nil else { continue }
        book.grants[code] = grant
        return code
      }
    }
  }

  /// The grant `text` stands for, once; nil-like answers for unknown, used and expired codes
  /// alike. Spaces and dashes are ignored and letters may be lower case, as people type them.
  package func redeem(_ text: String, client: String, now: Int64) -> Redemption {
    let code = Self.normalized(text)
    return book.withLock { book in
      var failures = book.failures[client] ?? Failures(windowStart: now, count: 0)
      if now - failures.windowStart >= Self.failureWindowMilliseconds {
        failures = Failures(windowStart: now, count: 0)
      }
      if failures.count >= Self.maxFailures {
        let left = failures.windowStart + Self.failureWindowMilliseconds - now
        return .throttled(retryAfterSeconds: Int(max(1, (left + 999) / 1000)))
      }
      if let code, let grant = book.grants.removeValue(forKey: code), grant.expiresAt > now {
        return .redeemed(grant)
      }
      failures.count += 1
      book.failures[client] = failures
      return .unknown
    }
  }

  /// Forgets expired codes and old failure counts (a duty; either map stays as small as what
  /// the last few minutes made).
  package func sweep(now: Int64) {
    book.withLock { book in
      // Once a second is soon enough: an expired code is refused when redeemed anyway.
      guard now - book.lastSweep >= 1000 else { return }
      book.lastSweep = now
      book.grants = book.grants.filter { $0.value.expiresAt > now }
      book.failures = book.failures.filter {
        now - $0.value.windowStart < Self.failureWindowMilliseconds
      }
    }
  }

  /// Forgets every code that stands for `share` of `session` (it was revoked or expired).
  package func forget(share: String, of session: SessionID) {
    book.withLock { book in
      book.grants = book.grants.filter { $0.value.session != session || $0.value.share != share }
    }
  }

  /// The code as issued, or nil when `text` cannot be one.
  static func normalized(_ text: String) -> String? {
    var bytes: [UInt8] = []
    for byte in text.utf8 where byte != UInt8(ascii: " ") && byte != UInt8(ascii: "-") {
      let upper = (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) ? byte - 32 : byte
      guard alphabet.contains(upper), bytes.count < length else { return nil }
      bytes.append(upper)
    }
    guard bytes.count == length else { return nil }
    return String(decoding: bytes, as: UTF8.self)
  }

  private static func randomCode() -> String {
    // Rejection sampling: 31 letters from bytes below 248 (8 x 31), with no bias.
    var bytes: [UInt8] = []
    while bytes.count < length {
      for byte in SecureRandom.bytes(16) where byte < 248 && bytes.count < length {
        bytes.append(alphabet[Int(byte) % alphabet.count])
      }
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}
