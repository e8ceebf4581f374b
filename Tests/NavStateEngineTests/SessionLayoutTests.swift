import Synchronization
import Testing

@testable import NavStateEngine

/// A million idle sessions must fit in 1 GiB (docs/performance.md): each holds one record, and
/// the record's heap block is 336 bytes only while its data stays within 216.
@Suite struct SessionLayoutTests {
  @Test("a session's data takes at most 216 bytes, so that its record fits a 336-byte block")
  func dataSize() {
    #expect(MemoryLayout<SessionRecord.Data>.size <= 216)
    #expect(MemoryLayout<Mutex<SessionRecord.Data>>.size <= 224)
  }

  @Test("a session's commit gate takes 4 bytes, in the padding after its token")
  func commitGateSize() {
    #expect(MemoryLayout<CommitGate>.size == 4)
  }
}
