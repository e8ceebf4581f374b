import Foundation
import OpenAPIRuntime

extension NavStateSession {
  /// The session's states as they change, from its event stream: the first is the state when
  /// the stream opens (its `reset`), then one per version.
  ///
  /// - After a drop it reconnects, waiting what the server's `retry:` asked (2 s), and resumes
  ///   with `Last-Event-ID`: events missed meanwhile are replayed, or a `reset` brings the whole
  ///   state when they are no longer kept.
  /// - Comments and heartbeats are skipped.
  /// - It finishes after `session.ended`, and throws when the session is gone or the token wrong.
  /// - `onConnection` is told when the stream goes live and when it drops.
  public func states(onConnection: @escaping @Sendable (Bool) -> Void = { _ in })
    -> AsyncThrowingStream<SessionState, any Error>
  {
    AsyncThrowingStream { continuation in
      let task = Task {
        var follower = StreamFollower(session: self, continuation: continuation)
        await follower.run(onConnection: onConnection)
      }
      continuation.onTermination = { _ in task.cancel() }
    }
  }
}

/// The reconnecting loop behind ``NavStateSession/states(onConnection:)``.
struct StreamFollower {
  let session: NavStateSession
  let continuation: AsyncThrowingStream<SessionState, any Error>.Continuation
  var lastEventID: String?
  var retry = Duration.milliseconds(2000)
  var current: SessionState?

  init(
    session: NavStateSession,
    continuation: AsyncThrowingStream<SessionState, any Error>.Continuation
  ) {
    self.session = session
    self.continuation = continuation
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
    if type == "reset" {
      deliver(
        SessionState(
          try Self.decoder.decode(Components.Schemas.SessionState.self, from: Data(data.utf8))))
      return .going
    }
    let decoded = NavigationEvent(
      try Self.decoder.decode(Components.Schemas.Event.self, from: Data(data.utf8)))
    if case .sessionEnded = decoded { return .ended }
    // The session is ending: its coordinators stop, then session.ended; there is no state to read.
    if case .stopped(_, _, _, let reason) = decoded, reason == "sessionEnded" { return .going }
    // Events come in bursts of one version: one read of the state per version is enough, and
    // none when an answer to this client already brought that version.
    if decoded.version > (current?.version ?? 0) {
      let state: SessionState
      do {
        state = try await session.state()
      } catch {
        // It ended (or expired) between the event and the read.
        if error.code == .sessionNotFound { return .ended }
        throw error
      }
      deliver(state)
    }
    return .going
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
