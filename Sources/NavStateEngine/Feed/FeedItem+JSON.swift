package import NavJSON
import NavStateWire
import NavigationCore

/// An item's own fields as JSON members (docs/feed.md's table), written into an open object.
extension FeedItem {
  package func writeFields(into writer: inout JSONWriter) {
    switch payload {
    case .sessionStarted(let graphVersion, let root):
      writer.key("graph")
      writer.string(graph)
      writer.key("graphVersion")
      writer.int(graphVersion)
      writer.key("root")
      writer.plainString(root)
    case .sessionEnded(let reason):
      writer.key("reason")
      writer.plainString(reason.rawValue)
    case .screenViewed(
      let screen, let params, let presentation, let transition, let previous, let graphVersion):
      Self.write(screen, into: &writer)
      writer.key("params")
      StateJSON.writeParams(params, into: &writer)
      writer.key("presentation")
      writer.plainString(presentation.jsonName)
      writer.key("transition")
      writer.plainString(transition.rawValue)
      writer.key("previous")
      if let previous {
        writer.beginObject()
        Self.write(previous, into: &writer)
        writer.endObject()
      } else {
        writer.null()
      }
      writer.key("graphVersion")
      writer.int(graphVersion)
    case .screenLeft(let screen, let durationMs):
      Self.write(screen, into: &writer)
      writer.key("durationMs")
      writer.int(durationMs)
    case .navigationRedirected(let route, let redirect):
      writer.key("route")
      writer.string(route)
      writer.key("redirect")
      writer.string(redirect)
    case .pendingApplied(let route):
      writer.key("route")
      writer.string(route)
    case .pendingDropped(let route, let reason):
      writer.key("route")
      writer.string(route)
      writer.key("reason")
      writer.plainString(reason.rawValue)
    case .contextChanged(let keys):
      writer.key("keys")
      writer.beginArray()
      for key in keys { writer.string(key) }
      writer.endArray()
    case .sessionMigrated(let from, let to):
      writer.key("from")
      writer.int(from)
      writer.key("to")
      writer.int(to)
    case .sessionRestored(let from):
      writer.key("from")
      writer.int(from)
    }
  }

  private static func write(_ screen: FeedScreen, into writer: inout JSONWriter) {
    writer.key("screen")
    writer.plainString(screen.route)
    writer.key("screenId")
    StateJSON.writeID(screen.id, into: &writer)
  }
}
