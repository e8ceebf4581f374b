package import NavigationCore

/// What a caller asks for in `POST .../shares`, checked: a mode, a label of 1 to 64
/// characters, a lifetime within the mode's bounds.
package struct ShareRequest: Sendable, Equatable {
  package var mode: ShareMode
  package var label: String
  package var ttlSeconds: Int
  /// Whether to hand out a handoff code with it.
  package var wantsCode: Bool

  /// `ttlSeconds` nil: the mode's default.
  package init(mode: ShareMode, label: String, ttlSeconds: Int?, wantsCode: Bool)
    throws(NavigationError)
  {
    // Counted as JSON Schema's maxLength counts: Unicode scalars.
    let characters = label.unicodeScalars.count
    guard (1...64).contains(characters) else {
      throw NavigationError(
        .invalidRequest, "'label' must be 1 to 64 characters (it has \(characters))")
    }
    let ttl = ttlSeconds ?? mode.defaultTTLSeconds
    guard (1...mode.maxTTLSeconds).contains(ttl) else {
      throw NavigationError(
        .invalidRequest,
        "'ttlSeconds' of a \(mode.rawValue) share must be 1 to \(mode.maxTTLSeconds)")
    }
    self.mode = mode
    self.label = label
    self.ttlSeconds = ttl
    self.wantsCode = wantsCode
  }
}

extension ShareMode {
  /// A follow share is for a support call; a drive share for a second device.
  package var defaultTTLSeconds: Int { self == .follow ? 900 : 86_400 }
  package var maxTTLSeconds: Int { self == .follow ? 3_600 : 2_592_000 }
}
