/// The `Idempotency-Key`s of one session and what was answered to each, so that a client may
/// retry a mutation whose answer it never got without applying it twice.
///
/// A key is first claimed (`pending`) and then settled with the answer, when that answer is a
/// decision (2xx or 4xx); a 5xx frees the key, so a retry is decided afresh. The newest
/// ``capacity`` decided keys are kept, oldest out first. Lives in the session's data, guarded by
/// its lock (hence `@unchecked Sendable`): nil in every session that never saw a key.
package final class IdempotencyLedger: @unchecked Sendable {
  package static let capacity = 256

  /// An answer as it is replayed: status, header fields and body, and the request it answered.
  package struct Decision: Sendable, Equatable {
    /// SHA-256 of the request's method, path and body.
    package var fingerprint: [UInt8]
    package var status: Int
    package var headers: [Header]
    package var body: [UInt8]

    package struct Header: Sendable, Equatable {
      package var name: String
      package var value: String

      package init(name: String, value: String) {
        self.name = name
        self.value = value
      }
    }

    package init(fingerprint: [UInt8], status: Int, headers: [Header], body: [UInt8]) {
      self.fingerprint = fingerprint
      self.status = status
      self.headers = headers
      self.body = body
    }
  }

  package enum Claim: Equatable {
    /// The key is new: decide the request, then ``settle(_:with:)`` or ``release(_:)`` it.
    case claimed
    /// Decided before: answer this again.
    case replay(Decision)
    /// The same request is being decided right now.
    case inUse
    /// The key was used for another request.
    case reused
  }

  private enum Entry {
    /// Claimed by the call numbered `owner` (see ``IdempotencyClaim/owner``), being decided.
    case pending(fingerprint: [UInt8], owner: UInt64)
    case decided(Decision)
  }

  private var entries: [String: Entry] = [:]
  /// Decided keys, oldest first, from `start`.
  private var order: [String] = []
  private var start = 0
  /// Bytes held, for the memory budget (see ``cost(of:)``).
  private(set) var footprint = 96

  /// An entry and its key, about: a pending one is this alone.
  private static let entryCost = 96

  /// What a decided key holds: its answer's body and header fields, and the entry around them.
  private static func cost(of decision: Decision) -> Int {
    var total = entryCost + 64 + decision.body.count
    for header in decision.headers {
      total += 32 + header.name.utf8.count + header.value.utf8.count
    }
    return total
  }

  /// The fingerprint of a request: its method, path and body, each length-prefixed so that no two
  /// requests share the bytes hashed.
  package static func fingerprint(method: String, path: String, body: [UInt8]) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(method.utf8.count + path.utf8.count + body.count + 16)
    bytes.appendBlob(method)
    bytes.appendBlob(path)
    bytes.appendVarint(UInt64(body.count))
    bytes += body
    return SHA256.hash(bytes)
  }

  /// Whether `key` is a key clients may send: 1 to 64 visible ASCII characters.
  package static func isValidKey(_ key: String) -> Bool {
    let utf8 = key.utf8
    return !utf8.isEmpty && utf8.count <= 64 && utf8.allSatisfy { $0 >= 0x21 && $0 <= 0x7E }
  }

  package func claim(_ key: String, fingerprint: [UInt8], owner: UInt64 = 0) -> Claim {
    switch entries[key] {
    case .none:
      entries[key] = .pending(fingerprint: fingerprint, owner: owner)
      footprint += Self.entryCost
      return .claimed
    case .pending(let claimed, _):
      return claimed == fingerprint ? .inUse : .reused
    case .decided(let decision):
      return decision.fingerprint == fingerprint ? .replay(decision) : .reused
    }
  }

  /// Whether `key` has been settled (by the operation itself, which journals it with its change).
  package func isDecided(_ key: String) -> Bool {
    if case .decided = entries[key] { return true }
    return false
  }

  /// Records the answer to `key`, claimed or not (a journal replay settles keys it never
  /// claimed); the oldest decided key goes once there are more than ``capacity``.
  package func settle(_ key: String, with decision: Decision) {
    switch entries[key] {
    case .decided: return
    case .pending: footprint -= Self.entryCost
    case .none: break
    }
    entries[key] = .decided(decision)
    footprint += Self.cost(of: decision)
    order.append(key)
    if order.count - start > Self.capacity {
      if case .decided(let oldest) = entries.removeValue(forKey: order[start]) {
        footprint -= Self.cost(of: oldest)
      }
      start += 1
      if start >= Self.capacity {
        order.removeFirst(start)
        start = 0
      }
    }
  }

  /// Frees a claimed key whose request was not decided (a 5xx).
  package func release(_ key: String) {
    guard case .pending = entries[key] else { return }
    entries.removeValue(forKey: key)
    footprint -= Self.entryCost
  }

  /// Settles a request decided outside a change (a refusal): `decision` nil (a 5xx) frees the
  /// key. The key is this call's when `owner` claimed it or nobody holds it (a request refused
  /// before it reached a change claims and settles at once); otherwise the verdict says whose it
  /// is, and nothing is recorded. `.claimed` means recorded (or freed).
  package func decide(
    _ key: String, fingerprint: [UInt8], owner: UInt64, _ decision: Decision?
  ) -> Claim {
    switch entries[key] {
    case .none:
      break
    case .pending(let claimed, let holder):
      guard holder == owner, claimed == fingerprint else {
        return claimed == fingerprint ? .inUse : .reused
      }
    case .decided(let decided):
      return decided.fingerprint == fingerprint ? .replay(decided) : .reused
    }
    if let decision {
      settle(key, with: decision)
    } else {
      release(key)
    }
    return .claimed
  }

  /// The decided keys and their answers, oldest first.
  package var decisions: [(key: String, decision: Decision)] {
    order[start...].compactMap { key in
      guard case .decided(let decision) = entries[key] else { return nil }
      return (key, decision)
    }
  }
}

extension IdempotencyLedger.Decision {
  /// The journal's and the snapshot's form of a decided key.
  package static func append(key: String, _ decision: Self, to bytes: inout [UInt8]) {
    bytes.appendBlob(key)
    bytes += decision.fingerprint
    bytes.appendVarint(UInt64(decision.status))
    bytes.appendVarint(UInt64(decision.headers.count))
    for header in decision.headers {
      bytes.appendBlob(header.name)
      bytes.appendBlob(header.value)
    }
    bytes.appendVarint(UInt64(decision.body.count))
    bytes += decision.body
  }

  package static func read(_ reader: inout ByteReader) -> (key: String, decision: Self)? {
    guard let key = reader.string() else { return nil }
    var fingerprint: [UInt8] = []
    for _ in 0..<32 {
      guard let byte = reader.byte() else { return nil }
      fingerprint.append(byte)
    }
    guard let status = reader.natural(), (100...599).contains(status),
      let headerCount = reader.count()
    else { return nil }
    var headers: [Header] = []
    for _ in 0..<headerCount {
      guard let name = reader.string(), let value = reader.string() else { return nil }
      headers.append(Header(name: name, value: value))
    }
    guard let bodyLength = reader.count() else { return nil }
    var body: [UInt8] = []
    body.reserveCapacity(bodyLength)
    for _ in 0..<bodyLength {
      guard let byte = reader.byte() else { return nil }
      body.append(byte)
    }
    return (key, Self(fingerprint: fingerprint, status: status, headers: headers, body: body))
  }
}
