#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A few freed writer buffers kept by each thread for its next writers.
///
/// A response's buffer is over a kilobyte, past glibc's per-thread cache of small blocks, so
/// `malloc` and `free` of one take the allocator's slow path: about 420 instructions each, five
/// times per push and pop. A request makes its writers one after another on one thread, so the
/// buffer a writer frees is the one the next writer takes.
enum WriterBufferCache {
  /// Buffers kept per thread, and the largest kept (a larger one is freed).
  static let slots = 4
  static let largestKept = 16 * 1024

  private struct Kept {
    var count = 0
    var buffers: (Buffer, Buffer, Buffer, Buffer) = (Buffer(), Buffer(), Buffer(), Buffer())
  }

  private struct Buffer {
    var start: UnsafeMutableRawPointer?
    var capacity = 0
  }

  private static let key: pthread_key_t = {
    var key = pthread_key_t()
    // When a thread ends, what it kept is freed.
    let created = pthread_key_create(&key) { kept in
      guard let kept else { return }
      let slots = kept.assumingMemoryBound(to: Kept.self)
      WriterBufferCache.freeAll(slots)
      free(kept)
    }
    precondition(created == 0, "pthread_key_create failed")
    return key
  }()

  /// A buffer of at least `capacity` bytes, from `malloc`, and its capacity.
  static func take(_ capacity: Int) -> (start: UnsafeMutableRawPointer, capacity: Int) {
    if let kept = pthread_getspecific(key)?.assumingMemoryBound(to: Kept.self),
      kept.pointee.count > 0
    {
      kept.pointee.count -= 1
      let buffer = withUnsafeMutableBytes(of: &kept.pointee.buffers) {
        $0.assumingMemoryBound(to: Buffer.self)[kept.pointee.count]
      }
      if buffer.capacity >= capacity, let start = buffer.start { return (start, buffer.capacity) }
      free(buffer.start)
    }
    // Out of memory, the process stops, as on any of Swift's own allocations (an array's, a
    // class instance's): no caller could go on without the buffer.
    guard let memory = malloc(capacity) else { fatalError("out of memory for \(capacity) bytes") }
    return (memory, capacity)
  }

  /// Keeps `start` (from `take` or `malloc`, `capacity` bytes) for this thread's next writer,
  /// or frees it.
  static func give(_ start: UnsafeMutableRawPointer, capacity: Int) {
    guard capacity <= largestKept else { return free(start) }
    var kept = pthread_getspecific(key)?.assumingMemoryBound(to: Kept.self)
    if kept == nil, let memory = malloc(MemoryLayout<Kept>.size) {
      let slots = memory.bindMemory(to: Kept.self, capacity: 1)
      slots.initialize(to: Kept())
      if pthread_setspecific(key, memory) == 0 { kept = slots } else { free(memory) }
    }
    guard let kept, kept.pointee.count < slots else { return free(start) }
    withUnsafeMutableBytes(of: &kept.pointee.buffers) {
      $0.assumingMemoryBound(to: Buffer.self)[kept.pointee.count] =
        Buffer(start: start, capacity: capacity)
    }
    kept.pointee.count += 1
  }

  private static func freeAll(_ kept: UnsafeMutablePointer<Kept>) {
    withUnsafeMutableBytes(of: &kept.pointee.buffers) {
      let buffers = $0.assumingMemoryBound(to: Buffer.self)
      for index in 0..<kept.pointee.count { free(buffers[index].start) }
    }
    kept.pointee.count = 0
  }
}
