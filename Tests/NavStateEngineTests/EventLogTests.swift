import NavJSON
import NavStateWire
import NavigationCore
import Testing

@testable import NavStateEngine

/// Events as the log keeps them: compact, read back exactly, refused when damaged.
@Suite struct CompactEventTests {
  private struct Generator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }
  }

  private static func text(_ random: inout Generator) -> String {
    let pieces = ["", "a", "detail", "é", "☃", "\"", "\\", "\n", "\u{0}", "😀", "x y"]
    return (0..<Int.random(in: 0...4, using: &random)).map { _ in
      pieces.randomElement(using: &random)!
    }.joined()
  }

  private static func json(_ random: inout Generator, depth: Int) -> JSONValue {
    switch Int.random(in: 0...(depth > 0 ? 6 : 4), using: &random) {
    case 0: .null
    case 1: .bool(Bool.random(using: &random))
    case 2: .int(Int.random(in: Int.min...Int.max, using: &random))
    case 3: .double(Double.random(in: -1e300...1e300, using: &random))
    case 4: .string(text(&random))
    case 5:
      .array(
        (0..<Int.random(in: 0...3, using: &random)).map { _ in json(&random, depth: depth - 1) })
    default:
      .object(
        JSONObject(
          (0..<Int.random(in: 0...3, using: &random)).map { _ in
            JSONObject.Member(key: text(&random), value: json(&random, depth: depth - 1))
          }))
    }
  }

  private static func event(_ random: inout Generator) -> NavigationEvent {
    let id = CoordinatorID(Int.random(in: 1...1_000_000, using: &random))
    let route = text(&random)
    let kind: NavigationEvent.Kind
    switch Int.random(in: 0...10, using: &random) {
    case 0:
      var params = Params()
      for _ in 0..<Int.random(in: 0...3, using: &random) {
        let value: ParamValue =
          switch Int.random(in: 0...3, using: &random) {
          case 0: .string(text(&random))
          case 1: .int(Int.random(in: Int.min...Int.max, using: &random))
          case 2: .number(Double.random(in: -1e10...1e10, using: &random))
          default: .bool(Bool.random(using: &random))
          }
        params[text(&random)] = value
      }
      kind = .started(
        id, route: route, params: params,
        presentation: Presentation.allCases.randomElement(using: &random)!,
        parent: Bool.random(using: &random)
          ? nil : CoordinatorID(Int.random(in: 1...99, using: &random)))
    case 1:
      kind = .stopped(
        id, route: route,
        reason: StopReason.allCases.randomElement(using: &random)!)
    case 2: kind = .resumed(id, result: json(&random, depth: 3))
    case 3:
      kind = .tabSelected(container: id, tab: Int.random(in: 0...20, using: &random), route: route)
    case 4:
      kind = .sessionEnded(reason: Bool.random(using: &random) ? .deleted : .expired)
    case 10:
      kind = .sessionMigrated(
        from: Int.random(in: 1...Int.max, using: &random),
        to: Int.random(in: 1...Int.max, using: &random))
    case 5:
      kind = .contextChanged(
        [
          text(&random): .string(text(&random)),
          "n": .int(Int64.random(in: .min ... .max, using: &random)),
          "b": .bool(Bool.random(using: &random)), "s": .strings([text(&random), text(&random)]),
        ])
    case 6: kind = .navigationRedirected(route: route, redirect: text(&random), coordinator: id)
    case 7: kind = .pendingApplied(route: route)
    case 8:
      kind = .pendingDropped(
        route: route, reason: PendingDropReason.allCases.randomElement(using: &random)!,
        code: Bool.random(using: &random)
          ? nil : NavigationError.Code.allCases.randomElement(using: &random)!)
    default:
      kind = .leaveGuardChanged(id, reason: Bool.random(using: &random) ? nil : text(&random))
    }
    return NavigationEvent(
      seq: Int.random(in: 1...Int.max, using: &random),
      version: Int.random(in: 1...Int.max, using: &random), kind: kind)
  }

  @Test func everyKindOfEventReadsBackAsItWasAndEncodesTheSameJSON() {
    var random = Generator(state: 12)
    for _ in 0..<5_000 {
      let event = Self.event(&random)
      var bytes: [UInt8] = []
      CompactEvent.append(event, to: &bytes)
      var reader = ByteReader(bytes)
      let read = CompactEvent.read(from: &reader)
      #expect(read == event)
      #expect(reader.isAtEnd)
      #expect(read.map(StateJSON.encodeEvent) == StateJSON.encodeEvent(event))
    }
  }

  @Test func aCutOrDamagedRecordIsRefusedNeverTrappedOn() {
    var random = Generator(state: 7)
    for _ in 0..<500 {
      let event = Self.event(&random)
      var bytes: [UInt8] = []
      CompactEvent.append(event, to: &bytes)
      for length in 0..<bytes.count {
        var reader = ByteReader(Array(bytes.prefix(length)))
        #expect(CompactEvent.read(from: &reader) == nil, "cut at \(length) of \(bytes.count)")
      }
      for _ in 0..<8 {
        var damaged = bytes
        damaged[Int.random(in: 0..<damaged.count, using: &random)] = UInt8.random(
          in: 0...255, using: &random)
        var reader = ByteReader(damaged)
        _ = CompactEvent.read(from: &reader)
      }
    }
  }
}

@Suite struct EventLogTests {
  private func started(_ seq: Int, text: String = "") -> NavigationEvent {
    NavigationEvent(
      seq: seq, version: seq,
      kind: .started(
        CoordinatorID(seq), route: "detail", params: ["text": .string(text)],
        presentation: .push, parent: CoordinatorID(1)))
  }

  @Test("a rollback takes back what was appended since the mark, as a copy made then would")
  func rollbackMatchesACopy() {
    for capacity in [3, 10, 1000] {
      for maxBytes in [200, 1000, 1 << 20] {
        for before in [0, 1, 5, 40] {
          for after in [1, 2, 7, 60] {
            var log = EventLog(capacity: capacity, maxBytes: maxBytes)
            for seq in stride(from: 1, through: before, by: 1) {
              log.append(started(seq, text: String(repeating: "x", count: seq % 50)))
            }
            let copy = log
            let mark = log.mark
            for seq in stride(from: before + 1, through: before + after, by: 1) {
              log.append(started(seq, text: String(repeating: "y", count: seq % 70)))
            }
            log.rollback(to: mark)
            let kept =
              log.after(0)?.map(\.seq)
              ?? log.after(log.oldestSeq.map { $0 - 1 } ?? 0)?
              .map(\.seq)
            let expected = copy.after(copy.oldestSeq.map { $0 - 1 } ?? 0)?.map(\.seq)
            let context = "capacity \(capacity), bytes \(maxBytes), \(before) then \(after)"
            if log.count == copy.count {
              #expect(kept == expected, "\(context)")
              #expect(log.oldestSeq == copy.oldestSeq, "\(context)")
            } else {
              // Compacted meanwhile: the newest events stay, the oldest may be gone.
              #expect(log.count < copy.count, "\(context)")
              #expect(expected.map { Array($0.suffix(log.count)) } == kept, "\(context)")
            }
            #expect(log.keptBytes <= max(copy.keptBytes, 0), "\(context)")
            // And it carries on as a log.
            log.append(started(before + 1))
            #expect(log.after(before)?.map(\.seq) == [before + 1], "\(context)")
          }
        }
      }
    }
  }

  @Test func keepsTheNewestUpToItsCountAndGivesThemBackAsJSON() {
    var log = EventLog(capacity: 10)
    for seq in 1...200 { log.append(started(seq)) }
    #expect(log.count == 10)
    #expect(log.oldestSeq == 191)
    let entries = log.after(195)
    #expect(entries?.map(\.seq) == [196, 197, 198, 199, 200])
    #expect(entries?.first.map { $0.type.description } == "coordinator.started")
    #expect(entries?.first?.json == StateJSON.encodeEvent(started(196)))
    #expect(log.after(190)?.count == 10)
    #expect(log.after(189) == nil)
    #expect(log.after(200)?.isEmpty == true)
  }

  @Test func keepsWhatFitsInItsBytesAndAlwaysTheNewest() {
    var log = EventLog(capacity: 1000, maxBytes: 1000)
    for seq in 1...50 { log.append(started(seq, text: String(repeating: "x", count: 90))) }
    #expect(log.keptBytes <= 1000)
    #expect(log.count >= 8 && log.count < 11)
    #expect(log.after(log.oldestSeq! - 1)?.map(\.seq) == Array(log.oldestSeq!...50))
    // An event over the cap on its own stays, alone.
    log.append(started(51, text: String(repeating: "y", count: 5000)))
    #expect(log.count == 1)
    #expect(log.after(50)?.map(\.seq) == [51])
  }

  @Test func anEmptyLogHasNothingToGiveAndNothingMissing() {
    let log = EventLog(capacity: 5)
    #expect(log.oldestSeq == nil)
    #expect(log.after(0)?.isEmpty == true)
  }
}
