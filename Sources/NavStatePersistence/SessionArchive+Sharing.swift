import NavJSON
import NavStateEngine
import NavigationCore

/// A session's shares and where it was forked from (docs/shares.md) in its archive: after its
/// history, and only when it has either, so that archives without them read as before. A kept
/// state of the history holds them after its tree (its flag byte says so).
extension SessionArchive {
  struct Sharing {
    var shares: [SessionShare] = []
    var forkedFrom: ForkOrigin?
  }

  static func hasSharing(_ state: NavigationState) -> Bool {
    !state.shares.isEmpty || state.forkedFrom != nil
  }

  static func appendSharing(_ state: NavigationState, to bytes: inout [UInt8]) {
    bytes.appendVarint(UInt64(state.shares.count))
    for share in state.shares { CommandCoding.appendShare(share, to: &bytes) }
    if let origin = state.forkedFrom {
      bytes.append(1)
      bytes.appendBlob(origin.session)
      bytes.appendVarint(UInt64(origin.version))
    } else {
      bytes.append(0)
    }
  }

  static func readSharing(_ reader: inout ByteReader) throws(Damage) -> Sharing {
    var sharing = Sharing()
    // Live shares are 16 at most; expired ones wait for the server's revocation, a few.
    guard let count = reader.count(), count <= 4096 else {
      throw Damage(reason: "cannot read its shares")
    }
    for _ in 0..<count {
      guard let share = CommandCoding.readShare(&reader) else {
        throw Damage(reason: "cannot read a share")
      }
      sharing.shares.append(share)
    }
    switch reader.byte() {
    case 0: break
    case 1:
      guard let session = reader.string(), let version = reader.natural() else {
        throw Damage(reason: "cannot read where it was forked from")
      }
      sharing.forkedFrom = ForkOrigin(session: session, version: version)
    default: throw Damage(reason: "cannot read where it was forked from")
    }
    return sharing
  }
}
