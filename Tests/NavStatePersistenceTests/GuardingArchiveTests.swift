import NavJSON
import NavigationCore
import Synchronization
import Testing

@testable import NavStateEngine
@testable import NavStatePersistence

/// A session's context, pending request and leave guards are kept in its archive (snapshots and
/// journal creations) and come back exactly.
@Suite struct GuardingArchiveTests {
  private func store() throws -> SessionStore {
    SessionStore(
      graphs: try BuiltInGraphs.load(), defaultGraph: "zumry", configuration: StoreConfiguration())
  }

  private func roundTrip(_ store: SessionStore, _ record: SessionRecord) throws -> NavigationState {
    let bytes = record.data.withLock { SessionArchive.encode(record, $0) }
    let back = try SessionArchive.decode(
      bytes, graph: { store.catalog.newest($0) }, configuration: store.configuration)
    return back.data.withLock { $0.navigation }
  }

  @Test func aRedirectedCreationKeepsItsPendingRequest() throws {
    let store = try store()
    let created = try store.createSession(graph: "zumry", root: nil, client: "test")
    let original = created.record.data.withLock { $0.navigation }
    #expect(original.pendingRequest?.route == "dashboard")
    #expect(original.version == 1)
    let back = try roundTrip(store, created.record)
    #expect(back.pendingRequest == original.pendingRequest)
    #expect(back.version == original.version)
    #expect(back.coordinators == original.coordinators)
  }

  @Test func contextPendingLinkAndLeaveGuardsComeBack() throws {
    let store = try store()
    let created = try store.createSession(
      graph: "zumry", root: nil, context: ["roles": .strings(["member"]), "plan": .int(3)],
      creator: .backend, client: "test")
    let record = created.record
    _ = try store.apply(
      .deepLink("myapp://dashboard/checkout/shoes"), to: record, precondition: nil, minimal: true)
    _ = try store.apply(
      .setLeaveGuard(CoordinatorID(1), reason: "typing"), to: record, precondition: nil,
      minimal: true)
    let original = record.data.withLock { $0.navigation }
    #expect(original.pendingRequest?.url == "myapp://dashboard/checkout/shoes")
    #expect(!original.leaveGuards.isEmpty)
    let back = try roundTrip(store, record)
    #expect(back.context == original.context)
    #expect(back.pendingRequest == original.pendingRequest)
    #expect(back.leaveGuards == original.leaveGuards)
    #expect(back.coordinators == original.coordinators)
  }
}
