/// Identifies a coordinator within its session as `c1`, `c2`, ...
///
/// Ids come from a per-session generation counter and are never reused, so a client holding a
/// stale id can always be told apart from one that names a coordinator that never existed.
public struct CoordinatorID: Hashable, Comparable, Sendable, CustomStringConvertible {
  public let number: Int

  public init(_ number: Int) {
    self.number = number
  }

  /// Reads `c<number>`; anything else is not an id this service issues.
  public init?(_ text: String) {
    guard text.utf8.count > 1, text.utf8.first == UInt8(ascii: "c") else { return nil }
    let digits = text.dropFirst()
    guard digits.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
      digits.utf8.first != UInt8(ascii: "0"), let number = Int(digits)
    else { return nil }
    self.number = number
  }

  public var description: String { "c\(number)" }

  public static func < (lhs: CoordinatorID, rhs: CoordinatorID) -> Bool { lhs.number < rhs.number }
}
