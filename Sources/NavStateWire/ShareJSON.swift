public import NavJSON
public import NavigationCore

/// Shares as the API shows them (docs/shares.md). Never the token, which only its creation's
/// answer holds.
public enum ShareJSON {
  /// `{id, mode, label, createdAt, expiresAt}`
  public static func writeShare(_ share: SessionShare, into writer: inout JSONWriter) {
    writer.beginObject()
    writeNaming(share, into: &writer)
    writer.key("createdAt")
    Timestamp(milliseconds: share.createdAt).withRFC3339 { writer.plainString($0) }
    writer.key("expiresAt")
    Timestamp(milliseconds: share.expiresAt).withRFC3339 { writer.plainString($0) }
    writer.endObject()
  }

  /// `"id":…,"mode":…,"label":…`: what names a share wherever it is shown.
  private static func writeNaming(_ share: SessionShare, into writer: inout JSONWriter) {
    writer.key("id")
    writer.string(share.id)
    writer.key("mode")
    writer.string(share.mode.rawValue)
    writer.key("label")
    writer.string(share.label)
  }

  /// `"shares": [{id, mode, label, expiresAt, watching}]`: the shares live at the view's time,
  /// or only the view's own (what a share token sees of them).
  public static func writeSharesMember(_ view: SharesView, into writer: inout JSONWriter) {
    writer.key("shares")
    writer.beginArray()
    let only = view.only
    for share in view.shares
    where share.isLive(at: view.now) && (only == nil || only == share.id) {
      writer.beginObject()
      writeNaming(share, into: &writer)
      writer.key("expiresAt")
      Timestamp(milliseconds: share.expiresAt).withRFC3339 { writer.plainString($0) }
      writer.key("watching")
      writer.int(view.watching[share.id] ?? 0)
      writer.endObject()
    }
    writer.endArray()
  }
}

/// What a state shows of its shares: which, to whom, and how many streams watch each.
public struct SharesView: Sendable {
  public var shares: [SessionShare]
  /// The share whose token reads (it sees only itself); nil: the owner, who sees them all.
  public var only: String?
  /// Milliseconds since 1970: shares expired by then are not shown.
  public var now: Int64
  /// Event streams open now with each share's token, by share id.
  public var watching: [String: Int]

  public init(
    shares: [SessionShare] = [], only: String? = nil, now: Int64 = 0,
    watching: [String: Int] = [:]
  ) {
    self.shares = shares
    self.only = only
    self.now = now
    self.watching = watching
  }
}
