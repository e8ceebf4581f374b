import NavJSON
import NavigationCore
import Synchronization
import Testing

@testable import NavStateEngine

/// The app's backend: its keys, what only it may do, and who may create sessions (docs/behaviour.md section 9).
@Suite struct BackendCallTests {
  private let key = "backend-key-0123456789-abcdefghijklmnop"

  private func store(creation: SessionCreationPolicy = .anyone) throws -> SessionStore {
    var configuration = StoreConfiguration()
    configuration.backendKeys = try BackendKeys(fileContents: Array("\n\(key)\r\n\n".utf8))
    configuration.sessionCreation = creation
    return SessionStore(
      graphs: try BuiltInGraphs.load(), defaultGraph: "zumry", configuration: configuration)
  }

  private func refusal(_ body: () throws(EngineRefusal) -> Void) -> EngineRefusal? {
    do {
      try body()
      return nil
    } catch {
      return error
    }
  }

  @Test func aKeyFileIsRefusedNamingTheLineButNeverTheKey() {
    let cases: [(String, String)] = [
      ("short-key", "line 1: a key has at least 32 characters"),
      ("\(key)\nwith a space in it but long enough to pass", "line 2: a key is printable ASCII"),
      (
        "\n\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "line 3: this key has the shape of a session token"
      ),
      ("\n\n", "it holds no key"),
    ]
    for (file, message) in cases {
      do {
        _ = try BackendKeys(fileContents: Array(file.utf8))
        Issue.record("accepted \(file)")
      } catch {
        #expect(error.description.hasPrefix(message), "\(error.description)")
        #expect(!error.description.contains("with a space"))
      }
    }
  }

  @Test func keysMatchExactlyAndAnyOfThem() throws {
    let keys = try BackendKeys(
      fileContents: Array("\(key)\nsecond-backend-key-9876543210-zyxwvu\n".utf8))
    #expect(keys.count == 2)
    for candidate in [key, "second-backend-key-9876543210-zyxwvu"] {
      #expect(Array(candidate.utf8).withUnsafeBufferPointer { keys.matches($0) })
    }
    for other in [key + "x", String(key.dropLast()), "", "second-backend-key"] {
      #expect(!Array(other.utf8).withUnsafeBufferPointer { keys.matches($0) })
    }
  }

  @Test func onlyTheBackendSetsTheContext() throws {
    let store = try store()
    let created = try store.createSession(graph: nil, root: nil, client: "test")
    let record = created.record
    let context: SessionContext = ["authenticated": .bool(true)]
    let bySession = refusal { () throws(EngineRefusal) in
      _ = try store.apply(.setContext(context), to: record, precondition: nil, minimal: true)
    }
    guard case .backendOnly = bySession else {
      Issue.record("a session's token set the context: \(String(describing: bySession))")
      return
    }
    // Hidden in a batch, or behind discard, it is the same command.
    let inBatch = refusal { () throws(EngineRefusal) in
      _ = try store.apply(
        .discarding(.batch([.setContext(context)])), to: record, precondition: nil, minimal: true)
    }
    #expect(inBatch != nil)
    let applied = try store.apply(
      .setContext(context), to: record, by: .backend, precondition: nil, minimal: true)
    #expect(applied.eventCount > 0)
    #expect(record.data.withLock { $0.navigation.context } == context)
  }

  @Test func aCreationWithContextNeedsTheBackend() throws {
    let store = try store()
    let context: SessionContext = ["authenticated": .bool(true)]
    let anyone = refusal { () throws(EngineRefusal) in
      _ = try store.createSession(graph: nil, root: nil, context: context, client: "test")
    }
    guard case .backendOnly = anyone else {
      Issue.record("a creation without a key set a context")
      return
    }
    let created = try store.createSession(
      graph: nil, root: nil, context: context, creator: .backend, client: "test")
    // The context opens the dashboard: no redirect, no pending request.
    let navigation = created.record.data.withLock { $0.navigation }
    #expect(navigation.pendingRequest == nil)
    #expect(navigation.rootID.flatMap { navigation[$0]?.route } == "dashboard")
  }

  @Test func aBackendKeyCallsAnySessionAndCreationCanBeTheBackendsAlone() throws {
    let store = try store(creation: .backend)
    let noKey = refusal { () throws(EngineRefusal) in _ = try store.creator(token: nil) }
    guard case .backendKeyRequired = noKey else {
      Issue.record("a creation without a key was let in")
      return
    }
    let creator = try Array(key.utf8).withUnsafeBufferPointer { (bytes) throws(EngineRefusal) in
      try store.creator(token: bytes)
    }
    #expect(creator == .backend)
    let created = try store.createSession(
      graph: nil, root: nil, creator: creator, client: "test")
    let found = try store.authorize(id: created.record.id, token: key)
    #expect(found === created.record)
    let (_, caller) = try Array(key.utf8).withUnsafeBufferPointer {
      (bytes) throws(EngineRefusal) in
      try store.authorizeCaller(key: created.record.key, token: bytes)
    }
    #expect(caller == .backend)
    // A key is no session token: another string of its length is malformed, not a key.
    let wrong = refusal { () throws(EngineRefusal) in
      _ = try store.authorize(id: created.record.id, token: String(key.reversed()))
    }
    guard case .malformedToken = wrong else {
      Issue.record("\(String(describing: wrong))")
      return
    }
  }
}
