import NavJSON
import NavStateWire
import NavigationCore

/// The binary form of a history entry, in memory and in stores alike: version, time (ms), author,
/// then a kind byte and the change, commands in the journal's form (``CommandCoding``).
extension SessionHistory {
  private enum Kind: UInt8 {
    case create = 1
    case command
    case migrate
    case unrecorded
    case fork
  }

  package static func append(_ entry: Entry, to bytes: inout [UInt8]) {
    bytes.appendVarint(UInt64(entry.version))
    bytes.appendVarint(Int(entry.at.milliseconds))
    bytes.append(entry.by.rawValue)
    switch entry.change {
    case .create(let graphVersion, let root, let context):
      bytes.append(Kind.create.rawValue)
      bytes.appendVarint(UInt64(graphVersion))
      bytes.append(root == nil ? 0 : 1)
      if let root { CommandCoding.append(.replace(root), to: &bytes) }
      CommandCoding.append(.setContext(context), to: &bytes)
    case .command(let command):
      bytes.append(Kind.command.rawValue)
      CommandCoding.append(command, to: &bytes)
    case .migrate(let from, let to):
      bytes.append(Kind.migrate.rawValue)
      bytes.appendVarint(UInt64(from))
      bytes.appendVarint(UInt64(to))
    case .unrecorded:
      bytes.append(Kind.unrecorded.rawValue)
    case .fork(let session, let version):
      bytes.append(Kind.fork.rawValue)
      bytes.appendBlob(session)
      bytes.appendVarint(UInt64(version))
    }
  }

  /// The next entry, or nil at the end or at bytes that are no entry.
  package static func read(_ reader: inout ByteReader) -> Entry? {
    guard !reader.isAtEnd, let version = reader.natural(), let at = reader.signed(),
      let authorByte = reader.byte(), let by = Author(rawValue: authorByte),
      let kindByte = reader.byte(), let kind = Kind(rawValue: kindByte)
    else { return nil }
    let change: Change
    switch kind {
    case .create:
      guard let graphVersion = reader.natural(), let hasRoot = reader.byte() else { return nil }
      var root: RouteRequest?
      if hasRoot == 1 {
        guard case .replace(let request) = CommandCoding.read(&reader) else { return nil }
        root = request
      }
      guard case .setContext(let context) = CommandCoding.read(&reader) else { return nil }
      change = .create(graphVersion: graphVersion, root: root, context: context)
    case .command:
      guard let command = CommandCoding.read(&reader) else { return nil }
      change = .command(command)
    case .migrate:
      guard let from = reader.natural(), let to = reader.natural() else { return nil }
      change = .migrate(from: from, to: to)
    case .unrecorded:
      change = .unrecorded
    case .fork:
      guard let session = reader.string(), let version = reader.natural() else { return nil }
      change = .fork(session: session, version: version)
    }
    return Entry(version: version, at: Timestamp(milliseconds: Int64(at)), by: by, change: change)
  }
}
