/// The versions a call may apply at (HTTP's `If-Match`, read by the API before the call): the
/// engine checks it under the session's lock, against the version the change would apply to.
public struct VersionPrecondition: Sendable {
  /// Any version will do (`*`).
  public var matchesAny: Bool
  /// The versions named.
  public var versions: [Int]
  /// The precondition as the caller wrote it, for the refusal's wording.
  public var text: String

  public init(matchesAny: Bool, versions: [Int], text: String) {
    self.matchesAny = matchesAny
    self.versions = versions
    self.text = text
  }

  public func accepts(_ version: Int) -> Bool {
    matchesAny || versions.contains(version)
  }

  /// Throws unless the session at `version` may be changed.
  package func check(_ version: Int) throws(EngineRefusal) {
    guard accepts(version) else {
      throw EngineRefusal.versionMismatch(current: version, precondition: self)
    }
  }
}
