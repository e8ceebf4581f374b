import NavJSON
import NavigationCore
import Synchronization

/// One live session. Its lock serializes the operations on it; other sessions never wait on it.
final class SessionRecord: Sendable {
  struct Data: Sendable {
    var navigation: NavigationState
    var updatedAt: Timestamp
    var expiresAt: Timestamp
    var log: EventLog
    var ended = false
  }

  let id: String
  let token: [UInt8]
  let createdAt: Timestamp
  let data: Mutex<Data>

  init(id: String, token: String, createdAt: Timestamp, data: Data) {
    self.id = id
    self.token = Array(token.utf8)
    self.createdAt = createdAt
    self.data = Mutex(data)
  }

  func times(of data: Data) -> SessionTimes {
    SessionTimes(createdAt: createdAt, updatedAt: data.updatedAt, expiresAt: data.expiresAt)
  }

  func writeState(of data: Data, into writer: inout JSONWriter) {
    StateJSON.writeState(data.navigation, id: id, times: times(of: data), into: &writer)
  }
}

extension SessionRecord.Data {
  /// Keeps the events for clients that catch up later.
  mutating func record(_ events: [NavigationEvent]) {
    for event in events {
      log.append(
        EventLog.Entry(
          seq: event.seq, type: event.kind.typeName, json: StateJSON.encodeEvent(event)))
    }
  }
}
