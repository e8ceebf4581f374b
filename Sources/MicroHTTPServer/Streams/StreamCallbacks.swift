internal import CMicroHTTPD

/// What MHD holds (retained, as the content reader's `cls`) for a streamed response.
final class StreamBinding {
  let stream: HTTPStream
  let server: ServerContext

  init(stream: HTTPStream, server: ServerContext) {
    self.stream = stream
    self.server = server
  }

  /// The response is gone. Unless the stream was handed over to a stream loop (where it lives
  /// on), that ends it: its `onClose` runs, once, and it is forgotten.
  func released() {
    if stream.markReleased() {
      stream.ended(in: server)
    }
  }
}

/// The size of the block libmicrohttpd allocates (with `calloc`, so every page of it is touched)
/// with a callback response. Only a body sent without chunking (an HTTP/1.0 request) is read
/// into it: a chunked body is read straight into the connection's write buffer, the content
/// reader being asked for up to that buffer's free space. A stream that stays parked in
/// libmicrohttpd holds it for its life (RSS per parked stream in a C server on the same options,
/// 2,000 streams: 28.9 KiB with 16 KiB, what it was; 25.1 KiB with 4 KiB; 22.1 KiB with 1 KiB);
/// a handed-over stream frees it with its response. 1 KiB: an HTTP/1.0 stream's events go out
/// in 1 KiB sends.
let streamBlockSize = 1024

// The C callbacks of a streamed response (MHD_create_response_from_callback). Free functions so
// they capture nothing; the stream comes back through `cls`.

/// MHD_ContentReaderCallback: runs on the connection's worker thread.
func mhdStreamRead(
  _ cls: UnsafeMutableRawPointer?, _ position: UInt64, _ buffer: UnsafeMutablePointer<CChar>?,
  _ capacity: Int
) -> Int {
  guard let cls, let buffer else { return cmhd_content_reader_end_with_error() }
  let binding = Unmanaged<StreamBinding>.fromOpaque(cls).takeUnretainedValue()
  return binding.stream.read(into: UnsafeMutableRawPointer(buffer), capacity: capacity)
}

/// MHD_ContentReaderFreeCallback: MHD destroyed the response (sent, client gone, daemon
/// stopping, or the stream handed over). Drops the retain taken when the response was created.
func mhdStreamFree(_ cls: UnsafeMutableRawPointer?) {
  guard let cls else { return }
  Unmanaged<StreamBinding>.fromOpaque(cls).takeRetainedValue().released()
}
