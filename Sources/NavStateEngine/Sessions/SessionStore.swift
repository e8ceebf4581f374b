import NavJSON
import NavStateWire
public import NavigationCore
package import Synchronization

/// Every live session and what happens to them, composed of parts with one job each: the
/// registry (sessions by key), admission (the caps), the stream hub, the expiry queues, the
/// memory budget, the counters for /metrics, and the storage changes are kept in. Its
/// extensions are the calls: creation and end (+Lifecycle), authentication, the transaction
/// (+Apply), reads, streams, migration.
public final class SessionStore: Sendable {
  public let configuration: StoreConfiguration
  /// Every loaded version of every graph.
  public let catalog: GraphCatalog
  public let defaultGraph: String
  package let registry = SessionRegistry()
  package let admission: SessionAdmission
  package let streams: StreamHub
  package let expiry: SessionExpiry
  public let memory: MemoryBudget
  /// What navigation did, for /metrics.
  public let counters = NavigationCounters()
  /// Every session's items for the app's backend (`GET /v1/feed`).
  package let feed: FeedLog
  /// Drawn when the feed began: its cursors name it, so that one from another feed is refused.
  /// A data directory keeps it (``DataDirectoryDurability``); otherwise drawn at each start.
  package let feedEpoch = Atomic<UInt32>(UInt32.random(in: 1...UInt32.max))
  /// When each session with shares next has one to expire.
  package let shareDeadlines = ShareDeadlines()
  /// Handoff codes issued and not yet redeemed, and failed redemptions by address.
  package let handoffs = HandoffCodes()
  /// Event streams open with each share's token.
  package let shareWatchers = ShareWatchers()
  /// Sessions whose streams changed, owed a presence message.
  package let presence = PresenceBoard()
  /// Where accepted changes are kept before they are answered (`--data-dir`, `--postgres`);
  /// nil: nowhere. Set once by ``attach(_:)`` while the store is made ready, before any request
  /// thread exists (the server starts after the restore that attaches it), and only read from
  /// then on, without a lock: a lock that every change takes was the most contended one under
  /// 64 connections, and an `AtomicLazyReference` of a generic box cost every request a
  /// metadata lookup (about 600 instructions, measured by callgrind).
  /// Nor is exclusivity checked at run time: two threads only ever read it.
  @exclusivity(unchecked) nonisolated(unsafe) private var storageValue: (any SessionStorage)?
  /// The same for ``attach(loader:)`` (`--postgres`), and whether there is one, read by every
  /// request.
  @exclusivity(unchecked) nonisolated(unsafe) var loaderValue: (any SessionLoader)?
  @exclusivity(unchecked) nonisolated(unsafe) var loaderAttached = false
  /// The same for ``attach(sharedFeed:)``, read by feed requests.
  @exclusivity(unchecked) nonisolated(unsafe) var sharedFeedValue: (any SharedFeed)?
  /// Held across a graph load's check, save and catalog entry, so that two loads of one version
  /// (two PUTs, a PUT and SIGHUP) cannot both pass the check: what is answered, served and saved
  /// is one version's bytes.
  package let graphLoads = Mutex(())

  package var storage: (any SessionStorage)? { storageValue }

  /// From now on, every creation, change and end is kept in `storage` before it is answered.
  /// Called before the store serves any request (see `storageValue`).
  package func attach(_ storage: any SessionStorage) {
    storageValue = storage
  }

  /// A store of `graphs` (each one version; their JSON is not kept, so a data directory cannot
  /// save them: for tests and tools).
  public convenience init(
    graphs: [RouteGraph], defaultGraph: String, configuration: StoreConfiguration
  ) {
    self.init(
      catalog: GraphCatalog(graphs.map { GraphCatalog.Version(graph: $0, source: []) }),
      defaultGraph: defaultGraph, configuration: configuration)
  }

  public init(catalog: GraphCatalog, defaultGraph: String, configuration: StoreConfiguration) {
    self.configuration = configuration
    self.memory = MemoryBudget(
      limit: configuration.maxMemoryBytes,
      headroom: configuration.eventBufferBytes + 2 * configuration.maxRequestBytes + 64 * 1024)
    self.catalog = catalog
    self.defaultGraph = defaultGraph
    self.admission = SessionAdmission(
      maxSessions: configuration.maxSessions, maxPerClient: configuration.maxSessionsPerClient,
      counting: registry)
    self.streams = StreamHub(
      maxPerClient: configuration.maxStreamsPerClient,
      heartbeatSeconds: configuration.heartbeatSeconds)
    self.expiry = SessionExpiry(endedSessionMemorySeconds: configuration.endedSessionMemorySeconds)
    self.feed = FeedLog(retention: configuration.feedRetention, memory: memory)
  }

  /// How this server writes and reads feed cursors.
  package var feedCursors: FeedCursorFormat {
    FeedCursorFormat(
      node: configuration.node?.name, epoch: feedEpoch.load(ordering: .relaxed))
  }

  public var liveSessions: Int { registry.sessionCount.load(ordering: .relaxed) }
  public var liveCoordinators: Int { registry.coordinatorCount.load(ordering: .relaxed) }
  public var expiredSessions: Int { expiry.expiredCount.load(ordering: .relaxed) }
  /// Event streams open now, over all sessions.
  public var openStreams: Int { streams.openCount.load(ordering: .relaxed) }
  /// Events written to streams since start.
  public var eventsDelivered: Int { streams.deliveryCount.load(ordering: .relaxed) }

  /// Calls `body` with every session held, shard by shard (not under the shard's lock).
  package func forEachSession(_ body: (SessionRecord) -> Void) { registry.forEach(body) }

  /// Brings the memory account of a session up to date after a change.
  package func reaccount(_ data: inout SessionRecord.Data) {
    let footprint = MemoryFootprint.session(data)
    memory.add(footprint - data.accountedBytes)
    data.accountedBytes = footprint
  }

  /// Counts the coordinators an operation started and stopped, and for /metrics the routes it
  /// started and the redirects it made.
  package func account(_ events: [NavigationEvent], counts: RouteCounts?) {
    registry.countCoordinators(events)
    guard let counts else { return }
    for event in events {
      switch event.kind {
      case .started, .navigationRedirected:
        counts.count(events)
        return
      default: continue
      }
    }
  }
}
