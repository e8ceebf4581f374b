/// A complete response body in memory its owner hands over whole, so that the server sends it
/// from where it lies instead of copying it into memory of its own (a state is over a kilobyte,
/// and each copy of that size costs an allocation on the allocator's slow path).
///
/// The memory is given back through `deallocate` once the last reference goes: libmicrohttpd
/// holds one while it sends.
public final class BodyBuffer: @unchecked Sendable {
  // @unchecked: the bytes are written before init and only read afterwards.
  public let start: UnsafeRawPointer
  public let count: Int
  private let capacity: Int
  private let deallocate: @convention(c) (UnsafeMutableRawPointer, Int) -> Void

  /// Takes `count` bytes at `start` (of `capacity` bytes in all), to be given back with
  /// `deallocate(start, capacity)`.
  public init(
    taking start: UnsafeMutableRawPointer, count: Int, capacity: Int,
    deallocate: @convention(c) (UnsafeMutableRawPointer, Int) -> Void
  ) {
    self.start = UnsafeRawPointer(start)
    self.count = count
    self.capacity = capacity
    self.deallocate = deallocate
  }

  deinit { deallocate(UnsafeMutableRawPointer(mutating: start), capacity) }

  /// A copy, for the rare reader that needs an array.
  public var bytes: [UInt8] { [UInt8](UnsafeRawBufferPointer(start: start, count: count)) }
}
