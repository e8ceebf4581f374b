public import Foundation
import OpenAPIRuntime

/// One version of a session: who made it, when, and the operation's name (`push`, `restore`,
/// `create`, ...).
public struct HistoryEntry: Sendable, Hashable {
  public var version: Int
  public var at: Date
  /// `client`, `backend` or `server`.
  public var by: String
  /// The operation as the server understood it, such as `push` or `restore`.
  public var operation: String
  /// For a push, present or replace: the route.
  public var route: String?
}

/// A page of a session's history.
public struct HistoryPage: Sendable, Hashable {
  /// The session's version now.
  public var version: Int
  /// The oldest version the server still keeps.
  public var oldest: Int
  public var entries: [HistoryEntry]
}

extension NavStateSession {
  /// The versions after `version`, at most `limit` (1 to 1000), oldest first.
  public func history(after version: Int = 0, limit: Int = 100) async throws(NavStateError)
    -> HistoryPage
  {
    do {
      let answer = try await client.getHistory(
        path: .init(sid: id), query: .init(after: Int64(version), limit: limit)
      ).ok.body.json
      guard case .History(let page) = answer else {
        throw NavStateError(
          status: 200, code: .unexpectedResponse, detail: "the history came as breadcrumbs")
      }
      return HistoryPage(
        version: page.version, oldest: page.oldest,
        entries: page.entries.map { entry in
          HistoryEntry(
            version: entry.version, at: entry.at, by: entry.by.rawValue,
            operation: entry.op.op,
            route: entry.op.additionalProperties.value["route"] as? String)
        })
    } catch {
      throw NavStateError.from(error)
    }
  }

  /// The state as it was right after `version` (one the history keeps; older is
  /// `history_expired`). Read-only: this session's own version stays where it is.
  public func state(at version: Int) async throws(NavStateError) -> SessionState {
    do {
      return SessionState(
        try await client.getSession(path: .init(sid: id), query: .init(at: Int64(version))).ok.body
          .json)
    } catch {
      throw NavStateError.from(error)
    }
  }

  /// Makes the visible path what it was at `version`, as a new change (`session.restored`).
  /// A leave guard in the way refuses it (`leave_blocked`) unless `discard`.
  public func restore(to version: Int, discard: Bool = false) async throws(NavStateError)
    -> Mutation
  {
    try await write(.restore(version: version)) { ifMatch in
      try await client.restore(
        path: .init(sid: id), headers: .init(ifMatch: ifMatch),
        body: .json(.init(version: version, discard: discard ? true : nil))
      ).ok.body.json
    }
  }
}
