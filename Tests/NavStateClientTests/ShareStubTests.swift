import Foundation
import HTTPTypes
import OpenAPIRuntime
import Synchronization
import Testing

@testable import NavStateClient

/// A transport that answers event streams and state reads from scripts, and records the
/// `Last-Event-ID` of every stream it was asked for.
final class ScriptedStreamTransport: ClientTransport {
  private let streams: Mutex<[String]>
  private let states: Mutex<[String]>
  /// The `Last-Event-ID` of each stream asked for (nil: none sent).
  let resumedAfter = Mutex<[String?]>([])

  init(streams: [String], states: [String]) {
    self.streams = Mutex(streams)
    self.states = Mutex(states)
  }

  func send(
    _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String
  ) async throws -> (HTTPResponse, HTTPBody?) {
    var fields = HTTPFields()
    switch operationID {
    case "streamEvents":
      resumedAfter.withLock { $0.append(request.headerFields[HTTPField.Name("Last-Event-ID")!]) }
      guard let stream = streams.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else {
        return Self.notFound
      }
      fields[.contentType] = "text/event-stream"
      fields[.cacheControl] = "no-store"
      return (HTTPResponse(status: .ok, headerFields: fields), HTTPBody(stream))
    case "getSession":
      guard let state = states.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else {
        return Self.notFound
      }
      fields[.contentType] = "application/json"
      fields[.eTag] = "\"1\""
      return (HTTPResponse(status: .ok, headerFields: fields), HTTPBody(state))
    default:
      return Self.notFound
    }
  }

  static var notFound: (HTTPResponse, HTTPBody?) {
    var fields = HTTPFields()
    fields[.contentType] = "application/problem+json"
    return (
      HTTPResponse(status: .notFound, headerFields: fields),
      HTTPBody(
        #"{"type":"x","title":"Not found","status":404,"detail":"d","code":"session_not_found"}"#)
    )
  }
}

/// A state as a follow share reads it: no context, only its own share.
func followerState(version: Int) -> String {
  stubState(version: version, guarded: false, pushed: false)
    .replacingOccurrences(of: "\n", with: "")
    .replacingOccurrences(
      of: #""context":{"authenticated":true,"plan":"pro","age":42,"roles":["member","admin"]},"#,
      with: ""
    )
    .replacingOccurrences(
      of: #""shares":[]"#,
      with: #""shares":[{"id":"b7Fq2xKc","mode":"follow","label":"Support: Ana","#
        + #""expiresAt":"2026-11-22T18:15:00.000Z","watching":1}],"#
        + #""forkedFrom":{"session":"s0","version":4}"#
    )
}

@Suite("Shares, presence and the event stream, without a server")
struct ShareStubTests {
  let url = URL(string: "http://navstate.test")!

  @Test("a follow share's state has no context; shares and forkedFrom are read")
  func followerStateFields() async throws {
    let transport = StubTransport([(200, followerState(version: 3))])
    let session = NavStateSession(serverURL: url, transport: transport, id: "s1", token: "t")
    let state = try await session.state()
    #expect(!followerState(version: 3).contains("context"))
    #expect(state.context.isEmpty)
    #expect(
      state.shares == [
        ShareEntry(
          id: "b7Fq2xKc", mode: .follow, label: "Support: Ana",
          expiresAt: try Date("2026-11-22T18:15:00.000Z", strategy: .iso8601), watching: 1)
      ])
    #expect(state.forkedFrom == ForkOrigin(session: "s0", version: 4))
  }

  @Test("share.created and share.revoked")
  func shareEvents() async throws {
    let events = #"""
      {"lastSeq":3,"events":[
       {"seq":2,"version":2,"type":"share.created","share":"b7Fq2xKc","mode":"drive","label":"iPad"},
       {"seq":3,"version":3,"type":"share.revoked","share":"b7Fq2xKc","reason":"expired"}]}
      """#
    let session = NavStateSession(
      serverURL: url, transport: StubTransport([(200, events)]), id: "s1", token: "t")
    let page = try await session.events()
    #expect(
      page.events == [
        .shareCreated(seq: 2, version: 2, share: "b7Fq2xKc", mode: .drive, label: "iPad"),
        .shareRevoked(seq: 3, version: 3, share: "b7Fq2xKc", reason: "expired"),
      ])
    #expect(page.events.map(\.seq) == [2, 3] && page.events.map(\.version) == [2, 3])
  }

  @Test("presence messages reach onPresence, yield no state and do not move Last-Event-ID")
  func presenceInTheStream() async throws {
    let reset = followerState(version: 1)
    let first = """
      retry: 100
      id: 1
      event: reset
      data: \(reset)

      event: presence
      data: {"clients":[{"kind":"session","streams":1,"since":"2026-11-22T18:00:00.000Z"},\
      {"kind":"share","share":"b7Fq2xKc","label":"Support: Ana","streams":1,\
      "since":"2026-11-22T18:02:10.500Z"}]}

      id: 2
      event: share.created
      data: {"seq":2,"version":2,"type":"share.created","share":"c8","mode":"drive","label":"iPad"}

      event: presence
      data: {"clients":[]}

      : heartbeat

      """
    // After the drop: an event of a type this client does not know, then the end.
    let second = """
      id: 3
      event: share.transferred
      data: {"seq":3,"version":3,"type":"share.transferred","share":"c8"}

      id: 4
      event: session.ended
      data: {"seq":4,"version":4,"type":"session.ended","reason":"deleted"}


      """
    let transport = ScriptedStreamTransport(
      streams: [first, second], states: [followerState(version: 2), followerState(version: 3)])
    let session = NavStateSession(serverURL: url, transport: transport, id: "s1", token: "t")
    let presences = Mutex<[Presence]>([])
    var versions: [Int] = []
    for try await state in session.states(onPresence: { presence in
      presences.withLock { $0.append(presence) }
    }) {
      versions.append(state.version)
    }
    #expect(versions == [1, 2, 3])
    let seen = presences.withLock { $0 }
    #expect(seen.map(\.clients.count) == [2, 0])
    #expect(seen.first?.clients.map(\.kind) == [.session, .share])
    #expect(seen.first?.clients.last?.label == "Support: Ana")
    #expect(seen.first?.clients.last?.share == "b7Fq2xKc")
    #expect(seen.first?.clients.first?.share == nil && seen.first?.clients.first?.streams == 1)
    // Resumed after the last event, not after a presence message (which has no id).
    #expect(transport.resumedAfter.withLock { $0 } == [nil, "2"])
  }

  @Test("a share's stream ends with its revocation, as a token that no longer opens the session")
  func revokedShareStream() async throws {
    let stream = """
      id: 1
      event: reset
      data: \(followerState(version: 1))

      id: 2
      event: share.revoked
      data: {"seq":2,"version":2,"type":"share.revoked","share":"b7Fq2xKc","reason":"revoked"}


      """
    // No state to read after the revocation (404), and no stream to reconnect to.
    let transport = ScriptedStreamTransport(streams: [stream], states: [])
    let session = NavStateSession(serverURL: url, transport: transport, id: "s1", token: "t")
    var versions: [Int] = []
    var refusal: NavStateError?
    do {
      for try await state in session.states() { versions.append(state.version) }
    } catch {
      refusal = error as? NavStateError
    }
    #expect(versions == [1])
    #expect(refusal?.code == .sessionNotFound && refusal?.reason == "revoked")
    #expect(transport.resumedAfter.withLock { $0.count } == 1)
  }
}
