import Foundation
import OpenAPIRuntime

extension NavStateSession {
  /// The session's states as they change, from its event stream: the first is the state when
  /// the stream opens (its `reset`), then one per version.
  ///
  /// - After a drop it reconnects, waiting what the server's `retry:` asked (2 s), and resumes
  ///   with `Last-Event-ID`: events missed meanwhile are replayed, or a `reset` brings the whole
  ///   state when they are no longer kept.
  /// - Comments and heartbeats are skipped; so are events of types this client does not know,
  ///   but for the state they changed.
  /// - It finishes after `session.ended`, and throws when the session is gone or the token wrong.
  ///   Opened with a share's token, it throws `sessionNotFound` after its share's
  ///   `share.revoked` (the error's `reason` is `revoked` or `expired`): the token no longer
  ///   opens the session.
  /// - `onConnection` is told when the stream goes live and when it drops.
  /// - `onPresence` is told who watches the session (the stream's `presence` messages: when a
  ///   client opens or closes a stream, at most once a second). They are no change of the
  ///   session: they yield no state and do not move `Last-Event-ID`.
  public func states(
    onConnection: @escaping @Sendable (Bool) -> Void = { _ in },
    onPresence: @escaping @Sendable (Presence) -> Void = { _ in }
  ) -> AsyncThrowingStream<SessionState, any Error> {
    AsyncThrowingStream { continuation in
      let task = Task {
        var follower = StreamFollower(
          session: self, continuation: continuation, onPresence: onPresence)
        await follower.run(onConnection: onConnection)
      }
      continuation.onTermination = { _ in task.cancel() }
    }
  }
}

/// The reconnecting loop behind ``NavStateSession/states(onConnection:onPresence:)``.
struct StreamFollower {
  let session: NavStateSession
  let continuation: AsyncThrowingStream<SessionState, any Error>.Continuation
  let onPresence: @Sendable (Presence) -> Void
  var lastEventID: String?
  var retry = Duration.milliseconds(2000)
  var current: SessionState?

  init(
    session: NavStateSession,
    continuation: AsyncThrowingStream<SessionState, any Error>.Continuation,
    onPresence: @escaping @Sendable (Presence) -> Void = { _ in }
  ) {
    self.session = session
    self.continuation = continuation
    self.onPresence = onPresence
  }

  mutating func run(onConnection: @Sendable (Bool) -> Void) async {
    while !Task.isCancelled {
      do {
        let body = try await session.client.streamEvents(
          path: .init(sid: session.id), headers: .init(lastEventID: lastEventID)
        ).ok.body.textEventStream
        onConnection(true)
        for try await event in body.asDecodedServerSentEvents() {
          if try await handle(event) == .ended {
            onConnection(false)
            continuation.finish()
            return
          }
        }
        onConnection(false)  // The stream ended without session.ended: a drop.
      } catch {
        onConnection(false)
        if Task.isCancelled { break }
        let refusal = NavStateError.from(error)
        if [.sessionNotFound, .unauthorized, .invalidToken].contains(refusal.code) {
          continuation.finish(throwing: refusal)
          return
        }
      }
      try? await Task.sleep(for: retry)
    }
    continuation.finish()
  }

  enum Outcome { case going, ended }

  mutating func handle(_ event: ServerSentEvent) async throws -> Outcome {
    // At least 100 ms: a `retry: 0` must not turn a dead server into a busy loop.
    if let milliseconds = event.retry { retry = .milliseconds(max(100, milliseconds)) }
    if let id = event.id { lastEventID = id }
    guard let type = event.event, let data = event.data else { return .going }
    switch type {
    case "reset":
      deliver(
        SessionState(
          try Self.decoder.decode(Components.Schemas.SessionState.self, from: Data(data.utf8))))
      return .going
    case "presence":
      // Who watches: no event of the session (no id, no version). One this client cannot read
      // is skipped; it must not cost the stream.
      if let presence = try? Self.decoder.decode(
        Components.Schemas.Presence.self, from: Data(data.utf8))
      {
        onPresence(Presence(presence))
      }
      return .going
    default:
      break
    }
    let decoded: NavigationEvent
    do {
      decoded = NavigationEvent(
        try Self.decoder.decode(Components.Schemas.Event.self, from: Data(data.utf8)))
    } catch {
      // An event of a type newer than this client: its version still says the state changed.
      guard let version = try? Self.decoder.decode(Versioned.self, from: Data(data.utf8)).version
      else { throw error }
      if version > (current?.version ?? 0) { return try await read() }
      return .going
    }
    if case .sessionEnded = decoded { return .ended }
    // The session is ending: its coordinators stop, then session.ended; there is no state to read.
    if case .stopped(_, _, _, let reason) = decoded, reason == "sessionEnded" { return .going }
    // A share ended. When it is the one this stream was opened with, the server ends the stream
    // after this event, and the token no longer reads the state: the read tells.
    if case .shareRevoked(_, _, let share, let reason) = decoded {
      return try await read(revoked: (share, reason))
    }
    // Events come in bursts of one version: one read of the state per version is enough, and
    // none when an answer to this client already brought that version.
    if decoded.version > (current?.version ?? 0) { return try await read() }
    return .going
  }

  /// Reads the state after an event and delivers it. After `share.revoked`, a token that no
  /// longer opens the session is this stream's share's: that refusal ends the stream.
  mutating func read(revoked: (share: String, reason: String)? = nil) async throws -> Outcome {
    let state: SessionState
    do {
      state = try await session.state()
    } catch {
      guard error.code == .sessionNotFound else { throw error }
      guard let revoked else { return .ended }  // It ended (or expired) between event and read.
      var refusal = error
      refusal.reason = revoked.reason
      refusal.detail =
        "the share \(revoked.share) was \(revoked.reason): its token no longer opens"
        + " the session"
      throw refusal
    }
    deliver(state)
    return .going
  }

  /// The member every event has, to read one of a type this client does not know.
  private struct Versioned: Decodable {
    var version: Int
  }

  mutating func deliver(_ state: SessionState) {
    guard state.version > (current?.version ?? 0) || state.id != current?.id else { return }
    current = state
    session.saw(state)
    continuation.yield(state)
  }

  static let decoder: JSONDecoder = {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .custom { decoder in
      let text = try decoder.singleValueContainer().decode(String.self)
      return try Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
    return decoder
  }()
}
