import NavigationCore
import Testing

@testable import NavStateEngine

/// Handoff codes: ten characters of a readable alphabet, each good once until it expires, typed
/// as people type them, and a limit on the failures one address may make in a minute.
@Suite struct HandoffCodesTests {
  private static let alphabet = Set("23456789ABCDEFGHJKMNPQRSTUVWXYZ")
  private static let session = SessionID(high: 1, low: 2)
  /// A time well after 1970, in ms.
  private static let t0: Int64 = 1_795_000_000_000

  private static func grant(
    _ share: String = "b7Fq2xKc", token: String = "share-token", expiresAt: Int64 = t0 + 300_000
  ) -> HandoffCodes.Grant {
    HandoffCodes.Grant(session: session, share: share, token: token, expiresAt: expiresAt)
  }

  /// The grant a redemption gave, or nil for any other answer.
  private static func redeemed(_ redemption: HandoffCodes.Redemption) -> HandoffCodes.Grant? {
    if case .redeemed(let grant) = redemption { return grant }
    return nil
  }

  private static func isUnknown(_ redemption: HandoffCodes.Redemption) -> Bool {
    if case .unknown = redemption { return true }
    return false
  }

  private static func retryAfter(_ redemption: HandoffCodes.Redemption) -> Int? {
    if case .throttled(let seconds) = redemption { return seconds }
    return nil
  }

  /// `count` failed redemptions from `client` at `now`, each answered unknown.
  private static func fail(_ codes: HandoffCodes, _ count: Int, client: String, now: Int64) {
    for attempt in 0..<count {
      let answer = codes.redeem("2222222222", client: client, now: now)
      #expect(isUnknown(answer), "failure \(attempt + 1) of \(count) was \(answer)")
    }
  }

  @Test("a code is 10 characters of 23456789ABCDEFGHJKMNPQRSTUVWXYZ, a new one each time")
  func shape() {
    #expect(HandoffCodes.length == 10)
    #expect(Set(HandoffCodes.alphabet.map { Character(UnicodeScalar($0)) }) == Self.alphabet)
    #expect(HandoffCodes.alphabet.count == 31)
    let codes = HandoffCodes()
    var issued: Set<String> = []
    var seen: Set<Character> = []
    for number in 0..<500 {
      let code = codes.issue(Self.grant("s\(number)"))
      #expect(code.count == 10, "\(code)")
      #expect(code.utf8.count == 10, "\(code)")
      #expect(code.allSatisfy(Self.alphabet.contains), "\(code)")
      issued.insert(code)
      seen.formUnion(code)
    }
    #expect(issued.count == 500)
    // 5 000 letters drawn: every one of the 31 turns up (each misses with odds below 1e-70).
    #expect(seen == Self.alphabet)
  }

  @Test("a code redeems its grant once; after that it is unknown")
  func singleUse() throws {
    let codes = HandoffCodes()
    let code = codes.issue(Self.grant(token: "tok-1"))
    let other = codes.issue(Self.grant("other", token: "tok-2"))
    let grant = try #require(Self.redeemed(codes.redeem(code, client: "a", now: Self.t0)))
    #expect(grant.session == Self.session)
    #expect(grant.share == "b7Fq2xKc")
    #expect(grant.token == "tok-1")
    #expect(grant.expiresAt == Self.t0 + 300_000)
    #expect(Self.isUnknown(codes.redeem(code, client: "a", now: Self.t0)))
    #expect(Self.isUnknown(codes.redeem(code, client: "b", now: Self.t0 + 1)))
    // Another code is its own.
    #expect(Self.redeemed(codes.redeem(other, client: "a", now: Self.t0))?.token == "tok-2")
  }

  @Test("a code is unknown from its grant's expiry on, and used up by the attempt")
  func expiry() {
    let codes = HandoffCodes()
    let late = codes.issue(Self.grant(expiresAt: Self.t0 + 300_000))
    #expect(Self.isUnknown(codes.redeem(late, client: "a", now: Self.t0 + 300_000)))
    // It stays unknown even at a time it would have been good.
    #expect(Self.isUnknown(codes.redeem(late, client: "a", now: Self.t0)))
    let inTime = codes.issue(Self.grant(expiresAt: Self.t0 + 300_000))
    #expect(Self.redeemed(codes.redeem(inTime, client: "a", now: Self.t0 + 299_999)) != nil)
    // A sweep forgets expired codes, and keeps the others.
    let swept = codes.issue(Self.grant(expiresAt: Self.t0 + 1_000))
    let kept = codes.issue(Self.grant(expiresAt: Self.t0 + 5_000))
    codes.sweep(now: Self.t0 + 1_000)
    #expect(Self.isUnknown(codes.redeem(swept, client: "b", now: Self.t0)))
    #expect(Self.redeemed(codes.redeem(kept, client: "b", now: Self.t0)) != nil)
  }

  @Test("lower case, spaces and dashes are accepted as people type a code")
  func typing() throws {
    let codes = HandoffCodes()
    let lower: (String) -> String = { $0.lowercased() }
    let dashed: (String) -> String = { String($0.prefix(5)) + "-" + String($0.dropFirst(5)) }
    let spaced: (String) -> String = { " " + $0.map(String.init).joined(separator: " ") + " " }
    let mixed: (String) -> String = { code in
      let head = String(code.prefix(3)).lowercased()
      let middle = String(code.dropFirst(3).prefix(4))
      let tail = String(code.dropFirst(7)).lowercased()
      return head + " - " + middle + "--" + tail
    }
    for variant in [lower, dashed, spaced, mixed] {
      let code = codes.issue(Self.grant())
      let typed = variant(code)
      #expect(typed != code)
      #expect(HandoffCodes.normalized(typed) == code, "\(typed)")
      #expect(Self.redeemed(codes.redeem(typed, client: "a", now: Self.t0)) != nil, "\(typed)")
    }
    #expect(HandoffCodes.normalized("7kq4-mz2p-9h") == "7KQ4MZ2P9H")
  }

  @Test(
    "what cannot be a code is none: another length, a letter outside the alphabet",
    arguments: [
      "", "7KQ4MZ2P9", "7KQ4MZ2P9HA", "7KQ4MZ2P90", "7KQ4MZ2P9O", "7KQ4MZ2P9I", "7KQ4MZ2P9L",
      "7KQ4MZ2P91", "7KQ4MZ2P9_", "7KQ4MZ2P9\u{C9}", "7KQ4MZ2P9H\n", "----------",
    ])
  func notACode(text: String) {
    #expect(HandoffCodes.normalized(text) == nil)
  }

  @Test("more than 10 failures in a minute from an address are throttled, with how long is left")
  func throttled() throws {
    let codes = HandoffCodes()
    let code = codes.issue(Self.grant())
    Self.fail(codes, HandoffCodes.maxFailures, client: "198.51.100.7", now: Self.t0)
    #expect(HandoffCodes.maxFailures == 10)
    // The 11th attempt is refused at once, a right code's too, which stays good.
    #expect(Self.retryAfter(codes.redeem(code, client: "198.51.100.7", now: Self.t0)) == 60)
    #expect(
      Self.retryAfter(codes.redeem("2222222222", client: "198.51.100.7", now: Self.t0 + 15_500))
        == 45)
    #expect(
      Self.retryAfter(codes.redeem(code, client: "198.51.100.7", now: Self.t0 + 59_999)) == 1)
    // Another address is not held back, and the code was not used up meanwhile.
    #expect(Self.redeemed(codes.redeem(code, client: "198.51.100.8", now: Self.t0 + 1)) != nil)
  }

  @Test("ten failures are still answered; the window starts at the first failure")
  func window() {
    let codes = HandoffCodes()
    Self.fail(codes, 9, client: "a", now: Self.t0)
    Self.fail(codes, 1, client: "a", now: Self.t0 + 30_000)
    // Ten in the minute from the first: the next is throttled until that minute is over.
    #expect(Self.retryAfter(codes.redeem("2222222222", client: "a", now: Self.t0 + 30_000)) == 30)
    // A minute after the first failure the count starts again: ten more are answered.
    Self.fail(codes, 10, client: "a", now: Self.t0 + 60_000)
    #expect(Self.retryAfter(codes.redeem("2222222222", client: "a", now: Self.t0 + 60_001)) == 60)
    let code = codes.issue(Self.grant())
    #expect(Self.redeemed(codes.redeem(code, client: "a", now: Self.t0 + 120_000)) != nil)
  }

  @Test("a redemption that succeeds counts no failure")
  func successesDoNotCount() {
    let codes = HandoffCodes()
    Self.fail(codes, 9, client: "a", now: Self.t0)
    for _ in 0..<5 {
      let code = codes.issue(Self.grant())
      #expect(Self.redeemed(codes.redeem(code, client: "a", now: Self.t0)) != nil)
    }
    Self.fail(codes, 1, client: "a", now: Self.t0)
    #expect(Self.retryAfter(codes.redeem("2222222222", client: "a", now: Self.t0)) == 60)
  }

  @Test("forgetting a share forgets its codes, and only its")
  func forget() {
    let codes = HandoffCodes()
    let revoked = codes.issue(Self.grant("s1"))
    let kept = codes.issue(Self.grant("s2"))
    let otherSession = codes.issue(
      HandoffCodes.Grant(
        session: SessionID(high: 9, low: 9), share: "s1", token: "t", expiresAt: Self.t0 + 1_000)
    )
    codes.forget(share: "s1", of: Self.session)
    #expect(Self.isUnknown(codes.redeem(revoked, client: "a", now: Self.t0)))
    #expect(Self.redeemed(codes.redeem(kept, client: "a", now: Self.t0)) != nil)
    #expect(Self.redeemed(codes.redeem(otherSession, client: "a", now: Self.t0)) != nil)
  }
}
