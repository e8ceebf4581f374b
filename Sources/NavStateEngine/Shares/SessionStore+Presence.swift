import NavJSON
package import NavStateWire
import NavigationCore
import Synchronization

/// Who is watching a session: one item per credential with open event streams, and `event:
/// presence` on every stream when that changes, at most once a second (docs/shares.md).
extension SessionStore {
  /// `{clients: [{kind, share?, label?, streams, since}]}`, the longest watching first.
  package func presence(of record: SessionRecord) throws(EngineRefusal) -> [UInt8] {
    try record.data.withLock { (data) throws(EngineRefusal) -> [UInt8] in
      guard !data.ended else { throw EngineRefusal.sessionNotFound }
      return Self.presenceJSON(of: data)
    }
  }

  /// Sends the sessions owed a presence message their streams' presence now: those with
  /// shares (and one whose last share just ended). A session never shared keeps the stream it
  /// always had: its own streams are the only watchers, and clients written before presence
  /// see nothing new.
  package func sendPresence(now: Timestamp) {
    for (record, forced) in presence.takeDue(now: now.milliseconds) {
      record.data.withLock { data in
        guard !data.ended, !data.subscribers.isEmpty, data.navigation.hasShares || forced
        else { return }
        var frame = Array("event: presence\ndata: ".utf8)
        frame += Self.presenceJSON(of: data)
        frame += "\n\n".utf8
        // No `id:`: presence is not an event of the session, and a reconnection never asks
        // for it again.
        data.subscribers.removeAll { subscriber in
          guard subscriber.awaitsFirstEvent else { return !subscriber.sink.write(frame) }
          return !subscriber.sink.write(EventStreamFraming.retryField + frame)
        }
        for index in data.subscribers.indices { data.subscribers[index].awaitsFirstEvent = false }
      }
    }
  }

  private struct Watcher {
    var caller: Caller
    var streams: Int
    var since: Timestamp
  }

  static func presenceJSON(of data: SessionRecord.Data) -> [UInt8] {
    var watchers: [Watcher] = []
    for subscriber in data.subscribers {
      if let index = watchers.firstIndex(where: { $0.caller == subscriber.caller }) {
        watchers[index].streams += 1
        if subscriber.since < watchers[index].since { watchers[index].since = subscriber.since }
      } else {
        watchers.append(Watcher(caller: subscriber.caller, streams: 1, since: subscriber.since))
      }
    }
    watchers.sort { $0.since < $1.since }
    let shares = data.navigation.shares
    var writer = JSONWriter(capacity: 64 + watchers.count * 128)
    writer.beginObject()
    writer.key("clients")
    writer.beginArray()
    for watcher in watchers {
      writer.beginObject()
      writer.key("kind")
      switch watcher.caller {
      case .backend: writer.plainString("backend")
      case .share(let id, _):
        writer.plainString("share")
        writer.key("share")
        writer.string(id)
        if let label = shares.first(where: { $0.id == id })?.label {
          writer.key("label")
          writer.string(label)
        }
      case .sessionHolder, .server: writer.plainString("session")
      }
      writer.key("streams")
      writer.int(watcher.streams)
      writer.key("since")
      watcher.since.withRFC3339 { writer.plainString($0) }
      writer.endObject()
    }
    writer.endArray()
    writer.endObject()
    return writer.bytes
  }
}
