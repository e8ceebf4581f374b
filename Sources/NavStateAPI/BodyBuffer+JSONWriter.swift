import MicroHTTPServer
import NavJSON

extension BodyBuffer {
  /// What `writer` wrote, sent from the writer's own buffer.
  convenience init(_ writer: consuming JSONWriter) {
    let buffer = writer.takeBuffer()
    self.init(
      taking: buffer.start, count: buffer.count, capacity: buffer.capacity,
      deallocate: releaseJSONWriterBuffer)
  }
}
