import Testing

@testable import NavJSON

/// A writer's buffer handed over whole, and buffers kept for the thread's next writer.
@Suite("JSON writer buffers", .serialized)
struct WriterBufferTests {
  @Test("takeBuffer hands over exactly what was written")
  func handOver() {
    var writer = JSONWriter(capacity: 16)
    writer.beginObject()
    writer.key("route")
    writer.string(String(repeating: "detail", count: 10))  // grows past 16 bytes
    writer.endObject()
    let buffer = writer.takeBuffer()
    let text = String(
      decoding: UnsafeRawBufferPointer(start: buffer.start, count: buffer.count), as: UTF8.self)
    #expect(text == "{\"route\":\"\(String(repeating: "detail", count: 10))\"}")
    #expect(buffer.capacity >= buffer.count)
    releaseJSONWriterBuffer(buffer.start, buffer.capacity)
  }

  @Test("a buffer given back is the next writer's on the same thread")
  func reuse() {
    let first = JSONWriter(capacity: 2048).takeBuffer()
    releaseJSONWriterBuffer(first.start, first.capacity)
    // Smaller or equal: the kept buffer serves, and the writer knows its whole capacity.
    let second = JSONWriter(capacity: 1024).takeBuffer()
    #expect(second.start == first.start)
    #expect(second.capacity == first.capacity)
    releaseJSONWriterBuffer(second.start, second.capacity)
  }

  @Test("a kept buffer too small for a writer is not handed out")
  func tooSmall() {
    let small = JSONWriter(capacity: 64).takeBuffer()
    releaseJSONWriterBuffer(small.start, small.capacity)
    let large = JSONWriter(capacity: 4096).takeBuffer()
    #expect(large.capacity >= 4096)
    // Writing to all of it must be safe.
    large.start.initializeMemory(as: UInt8.self, repeating: 0x20, count: large.capacity)
    releaseJSONWriterBuffer(large.start, large.capacity)
  }

  @Test("no more than a few buffers, none large, are kept")
  func bounded() {
    let buffers = (0..<(WriterBufferCache.slots + 2)).map { _ in
      JSONWriter(capacity: 256).takeBuffer()
    }
    for buffer in buffers { releaseJSONWriterBuffer(buffer.start, buffer.capacity) }
    // The first ones given back were kept and come back; the rest were freed.
    let again = (0..<WriterBufferCache.slots).map { _ in JSONWriter(capacity: 256).takeBuffer() }
    let kept = Set(buffers.prefix(WriterBufferCache.slots).map(\.start))
    #expect(Set(again.map(\.start)) == kept)
    for buffer in again { releaseJSONWriterBuffer(buffer.start, buffer.capacity) }
    let large = JSONWriter(capacity: WriterBufferCache.largestKept + 1).takeBuffer()
    releaseJSONWriterBuffer(large.start, large.capacity)
    let next = JSONWriter(capacity: 16).takeBuffer()
    #expect(next.capacity <= WriterBufferCache.largestKept)
    releaseJSONWriterBuffer(next.start, next.capacity)
  }
}
