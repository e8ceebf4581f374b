internal import CMicroHTTPD

/// What MHD holds (retained, as the content reader's `cls`) for a streamed response.
final class StreamBinding {
  let stream: HTTPStream
  let registry: StreamRegistry

  init(stream: HTTPStream, registry: StreamRegistry) {
    self.stream = stream
    self.registry = registry
  }

  /// The response is gone: forget the stream and run its `onClose`, once.
  func released() {
    if stream.markReleased() {
      registry.remove(stream)
      stream.onClose()
    }
  }
}

/// Block size hint for the stream reader (MHD may ask for less).
let streamBlockSize = 16 * 1024

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

/// MHD_ContentReaderFreeCallback: MHD destroyed the response (sent, client gone, or daemon
/// stopping). Drops the retain taken when the response was created.
func mhdStreamFree(_ cls: UnsafeMutableRawPointer?) {
  guard let cls else { return }
  Unmanaged<StreamBinding>.fromOpaque(cls).takeRetainedValue().released()
}
