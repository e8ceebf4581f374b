import NavJSON
import NavStateEngine
import NavigationCore

/// A session's history in its archive: its entries as the history holds them, then the state
/// they start from when that is not the creation.
extension SessionArchive {
  static func appendHistory(_ history: SessionHistory, to bytes: inout [UInt8]) {
    bytes.appendVarint(UInt64(history.bytes.count))
    bytes += history.bytes
    if let base = history.base {
      // 2: the kept state's shares and origin follow it (see SessionArchive+Sharing).
      let sharing = hasSharing(base)
      bytes.append(sharing ? 2 : 1)
      appendState(base, to: &bytes)
      if sharing { appendSharing(base, to: &bytes) }
    } else {
      bytes.append(0)
    }
  }

  static func readHistory(
    _ reader: inout ByteReader, graph: (String, Int) -> RouteGraph?, limits: NavigationLimits
  ) throws(Damage) -> SessionHistory {
    guard let length = reader.count(), let entries = reader.bytes(length) else {
      throw Damage(reason: "cannot read its history")
    }
    let base: NavigationState?
    switch reader.byte() {
    case 0: base = nil
    case 1: base = try readState(&reader, graph: graph, limits: limits)
    case 2: base = try readState(&reader, graph: graph, limits: limits, withSharing: true)
    default: throw Damage(reason: "cannot read its history's kept state")
    }
    guard let history = SessionHistory(restoring: entries, base: base) else {
      throw Damage(reason: "its history is not one a session keeps")
    }
    return history
  }
}
