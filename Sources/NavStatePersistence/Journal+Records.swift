package import NavStateEngine
import NavStateWire
package import NavigationCore

extension Journal {
  /// One journal record, built in one buffer: its frame (length and CRC-32, as in the snapshot)
  /// is left blank in front and filled in by ``sealed()``.
  package struct Record {
    package private(set) var bytes: [UInt8]

    package init(_ tag: Tag, capacity: Int = 96) {
      bytes = []
      bytes.reserveCapacity(capacity + 9)
      bytes.append(contentsOf: repeatElement(0, count: 8))
      bytes.append(tag.rawValue)
    }

    /// Appends to the record's body.
    package mutating func body(_ write: (inout [UInt8]) -> Void) { write(&bytes) }

    /// The record framed: the payload's length, its CRC-32, the payload (tag and body). Framed
    /// in place, in the buffer the record was built in.
    package consuming func sealed() -> [UInt8] {
      let checksum = bytes.withUnsafeBytes {
        CRC32.checksum(UnsafeRawBufferPointer(rebasing: $0[8...]))
      }
      bytes.withUnsafeMutableBytes { frame in
        frame.storeBytes(of: UInt32(frame.count - 8).littleEndian, toByteOffset: 0, as: UInt32.self)
        frame.storeBytes(of: checksum.littleEndian, toByteOffset: 4, as: UInt32.self)
      }
      return bytes
    }

    /// `record` and the backend feed's items it made, in one record (`fed`), so that a store
    /// keeps both or neither; `record` itself when it made none.
    package static func withFeed(_ record: consuming Record, _ feed: [FeedItem]) -> Record {
      guard !feed.isEmpty else { return record }
      let inner = record.bytes[8...]
      var fed = Record(.fed, capacity: inner.count + feed.count * 96)
      fed.body { body in
        body.appendVarint(UInt64(inner.count))
        body += inner
        body += FeedItem.encode(feed)
      }
      return fed
    }

    /// The payload a store keeps when it frames records itself (a database row): tag and body.
    package var payload: [UInt8] { Array(bytes[8...]) }
  }

  /// A change; with `decided`, the `Idempotency-Key` it answered and the answer, in the same
  /// record, so that no restart can keep the change and lose the key.
  package static func command(
    _ record: SessionRecord, _ command: Command, data: SessionRecord.Data,
    by author: SessionHistory.Author = .client,
    decided: (key: String, decision: IdempotencyLedger.Decision)? = nil
  ) -> Record {
    var made = Record(.change, capacity: 96 + (decided?.decision.body.count ?? 0))
    made.body { bytes in
      bytes.appendVarint(record.key.high)
      bytes.appendVarint(record.key.low)
      bytes.appendBlob(data.navigation.graph.name)
      bytes.appendVarint(UInt64(data.navigation.graphVersion))
      CommandCoding.append(command, to: &bytes)
      bytes.appendVarint(UInt64(data.navigation.version))
      bytes.appendVarint(Int(data.updatedAt.milliseconds))
      bytes.appendVarint(Int(data.expiresAt.milliseconds))
      bytes.append(author.rawValue)
      if let decided {
        IdempotencyLedger.Decision.append(key: decided.key, decided.decision, to: &bytes)
      }
    }
    return made
  }

  /// A new session: the graph version, then the whole session.
  package static func session(_ record: SessionRecord, _ data: SessionRecord.Data) -> Record {
    var made = Record(.session, capacity: 512)
    made.body { bytes in
      bytes.appendVarint(UInt64(data.navigation.graphVersion))
      bytes += SessionArchive.encode(record, data)
    }
    return made
  }

  package static func decided(
    _ record: SessionRecord, key: String, _ decision: IdempotencyLedger.Decision
  ) -> Record {
    var made = Record(.decided, capacity: decision.body.count + 96)
    made.body { bytes in
      bytes.appendVarint(record.key.high)
      bytes.appendVarint(record.key.low)
      IdempotencyLedger.Decision.append(key: key, decision, to: &bytes)
    }
    return made
  }

  package static func ended(_ record: SessionRecord) -> Record {
    var made = Record(.ended, capacity: 24)
    made.body { bytes in
      bytes.appendVarint(record.key.high)
      bytes.appendVarint(record.key.low)
    }
    return made
  }

  package static func migrated(
    _ session: SessionRecord, data: SessionRecord.Data, from: Int
  ) -> Record {
    var made = Record(.migrated, capacity: 64)
    made.body { bytes in
      bytes.appendVarint(session.key.high)
      bytes.appendVarint(session.key.low)
      bytes.appendBlob(data.navigation.graph.name)
      bytes.appendVarint(UInt64(from))
      bytes.appendVarint(UInt64(data.navigation.graphVersion))
      bytes.appendVarint(UInt64(data.navigation.version))
      bytes.appendVarint(Int(data.updatedAt.milliseconds))
      bytes.appendVarint(Int(data.expiresAt.milliseconds))
    }
    return made
  }
}

/// The engine writes through this: each record is the format-2 record of its kind.
extension Journal: SessionStorage {
  package func recordCreation(
    of session: SessionRecord, _ data: SessionRecord.Data, feed: [FeedItem]
  ) -> StorageReceipt {
    receipt(for: Self.session(session, data), feed: feed)
  }

  package func recordChange(
    of session: SessionRecord, _ command: Command, data: SessionRecord.Data,
    decided: (key: String, decision: IdempotencyLedger.Decision)?, feed: [FeedItem]
  ) -> StorageReceipt {
    receipt(
      for: Self.command(
        session, command, data: data, by: data.history.newestAuthor, decided: decided),
      feed: feed)
  }

  package func recordDecision(
    of session: SessionRecord, key: String, _ decision: IdempotencyLedger.Decision
  ) -> StorageReceipt {
    receipt(for: Self.decided(session, key: key, decision))
  }

  package func recordEnd(of session: SessionRecord, feed: [FeedItem]) -> StorageReceipt {
    receipt(for: Self.ended(session), feed: feed)
  }

  package func recordMigration(
    of session: SessionRecord, data: SessionRecord.Data, from: Int, feed: [FeedItem]
  ) -> StorageReceipt {
    receipt(for: Self.migrated(session, data: data, from: from), feed: feed)
  }

  /// Saved as a file of its own beside the journal (see ``DataDirectory/graphFileName``),
  /// flushed before the version is loaded.
  package func recordGraph(_ version: GraphCatalog.Version) -> Bool {
    guard !version.source.isEmpty else { return true }
    let name = DataDirectory.graphFileName(version.graph.name, version.graph.version)
    do {
      try DataDirectory.replace(directory + "/" + name, with: version.source, directory: directory)
      return true
    } catch {
      return false
    }
  }
}
