import NavStateAPI
import NavStateEngine
import NavigationCore

/// The history's costs: the state at any of 1,000 kept versions (`GET ...?at=V`), and 1,000
/// recordings of 50 entries each read from NDJSON and replayed (`POST .../replay`), both in
/// process (no socket).
func historyTimes(graphs: [RouteGraph], smoke: Bool) throws {
  var configuration = StoreConfiguration()
  configuration.historyVersions = 1000
  let store = SessionStore(graphs: graphs, defaultGraph: "demo", configuration: configuration)

  // A session 1,200 versions long (so the oldest went in a chunk), pushing and popping details
  // four deep.
  let record = try store.createSession(graph: nil, root: nil, client: "bench").record
  var depth = 1
  for index in 0..<1199 {
    let command: Command =
      depth < 4 || index % 3 == 0 && depth < 6 ? .push(detail(index)) : .pop()
    _ = try store.apply(command, to: record, precondition: nil, minimal: true)
    if case .push = command { depth += 1 } else { depth -= 1 }
  }
  let newest = try store.state(of: record).version
  let oldest = newest - 999
  var worst: UInt64 = 0
  var total: UInt64 = 0
  for version in oldest...newest {
    let start = nanoseconds()
    _ = try store.state(of: record, at: version)
    let time = nanoseconds() - start
    worst = max(worst, time)
    total += time
  }
  print(
    "\(padded("state at a version, mean of 1,000 kept", 44)) \(padded(String(total / 1000), 10, left: true)) ns/op"
  )
  print(
    "\(padded("state at a version, slowest of 1,000 kept", 44)) \(padded(String(worst), 10, left: true)) ns/op"
  )

  // 1,000 recordings of 50 entries: 20 sessions' recordings, repeated.
  var sessions: [[UInt8]] = []
  for seed in 0..<20 {
    let session = try store.createSession(graph: nil, root: nil, client: "bench").record
    var depth = 1
    for step in 0..<50 {
      let push = depth < 2 || (step + seed) % 3 != 0
      _ = try store.apply(
        push ? .push(detail(step)) : .pop(), to: session, precondition: nil, minimal: true)
      depth += push ? 1 : -1
    }
    sessions.append(try store.recording(of: session).lines.flatMap { $0 + [0x0A] })
  }
  let count = smoke ? 100 : 1000
  var body: [UInt8] = []
  for index in 0..<count { body += sessions[index % sessions.count] }
  let start = nanoseconds()
  let (_, recordings) = try NavStateService.recordings(in: body)
  let diverged = GraphReplay.run(
    recordings, on: graphs.first { $0.name == "demo" }!, limits: configuration.limits)
  let time = nanoseconds() - start
  precondition(recordings.count == count && diverged.isEmpty && recordings[0].entries.count == 50)
  let label = "replay of \(count) recordings of 50 entries"
  print(
    "\(padded(label, 44)) \(padded(String(time / 1_000_000), 10, left: true)) ms (\(body.count / 1024) KiB)"
  )
}
