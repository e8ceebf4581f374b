import Testing

@testable import NavStateEngine

/// The 64 shards of `--shards`: an id's first character names its shard, and a shard's slot
/// reads only ids of its own.
@Suite struct ShardTests {
  static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")

  @Test func anIdMadeInAShardBeginsWithItsCharacterAndReadsBack() {
    for shard in 0..<NodeName.shardCount {
      for _ in 0..<20 {
        let id = SessionID.random(inShard: shard)
        #expect(id.shard == shard)
        #expect(id.description.first == Self.alphabet[shard])
        #expect(SessionID(id.description) == id)
      }
    }
  }

  @Test func theRestOfAShardIdIsRandom() {
    let ids = (0..<1000).map { _ in SessionID.random(inShard: 9) }
    #expect(Set(ids).count == 1000)
    // Every one of the 58 bits below the shard's 6 is set in some id and clear in another.
    let ored = ids.reduce(0) { $0 | $1.high }
    let anded = ids.reduce(UInt64.max) { $0 & $1.high }
    #expect(ored & (UInt64.max >> 6) == UInt64.max >> 6)
    #expect(anded & (UInt64.max >> 6) == 0)
  }

  @Test func aShardReadsOnlyItsOwnIds() {
    let id = SessionID.random(inShard: 3)
    #expect(NodeName.shard(3).key(of: id.description) == id)
    #expect(NodeName.shard(4).key(of: id.description) == nil)
    #expect(NodeName.shard(3).key(of: "n1." + id.description) == nil)
    #expect(NodeName.shard(of: id) === NodeName.shard(3))
    #expect(NodeName.shard(3).prefix.isEmpty)
  }

  @Test func slotsAreNamedSoThatNoNodeNameIsAShard() {
    #expect(NodeName.shard(3).name == "shard.03")
    #expect(NodeName.shard(63).name == "shard.63")
    #expect(NodeName.slot(named: "shard.03") === NodeName.shard(3))
    #expect(NodeName.slot(named: "n2")?.name == "n2")
    #expect(NodeName.slot(named: "n2")?.shardIndex == nil)
    for notASlot in ["shard.64", "shard.3", "shard.-1", "shard.", "Shard.03", "n.2"] {
      #expect(NodeName.slot(named: notASlot) == nil, "\(notASlot)")
    }
    #expect(NodeName("shard.03") == nil, "a node's name has no dot")
    #expect(NodeName.idPrefix(ofSlot: "shard.03") == "")
    #expect(NodeName.idPrefix(ofSlot: "n2") == "n2.")
  }
}
