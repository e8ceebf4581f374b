/// ``HTTPServerConfiguration`` checked and converted to the C types of MHD's options.
struct DaemonOptions {
  var threads: UInt32
  var connectionLimit: UInt32
  var perIPLimit: UInt32
  var timeoutSeconds: UInt32
  var memoryLimit: Int

  /// The smallest per-connection memory accepted: a request line and ordinary headers must fit.
  static let minimumMemoryLimit = 8 * 1024

  init(_ configuration: HTTPServerConfiguration) throws(HTTPServerError) {
    guard configuration.threads >= 1, configuration.threads <= 1024 else {
      throw .invalidConfiguration("threads must be between 1 and 1024")
    }
    guard configuration.connectionLimit >= 1,
      configuration.connectionLimit <= Int(Int32.max)
    else {
      throw .invalidConfiguration("connectionLimit must be at least 1")
    }
    guard configuration.connectionsPerIP >= 0,
      configuration.connectionsPerIP <= Int(Int32.max)
    else {
      throw .invalidConfiguration("connectionsPerIP must be 0 (no cap) or more")
    }
    guard configuration.connectionTimeoutSeconds >= 0,
      configuration.connectionTimeoutSeconds <= Int(Int32.max)
    else {
      throw .invalidConfiguration("connectionTimeoutSeconds must be 0 (none) or more")
    }
    guard configuration.memoryLimitPerConnection >= Self.minimumMemoryLimit else {
      throw .invalidConfiguration(
        "memoryLimitPerConnection must be at least \(Self.minimumMemoryLimit) bytes")
    }
    guard configuration.headerTimeoutSeconds > 0, configuration.headerTimeoutSeconds <= 86_400
    else {
      throw .invalidConfiguration("headerTimeoutSeconds must be more than 0 and at most a day")
    }
    guard configuration.minimumBodyBytesPerSecond >= 1 else {
      throw .invalidConfiguration("minimumBodyBytesPerSecond must be at least 1")
    }
    guard configuration.maxBodyBytes >= 0 else {
      throw .invalidConfiguration("maxBodyBytes must not be negative")
    }
    // A pool of one is MHD's single-thread epoll mode, which stalled here; see the property doc.
    threads = UInt32(max(2, configuration.threads))
    // Out of MHD's reach (it splits its limit evenly between the threads and, at it, stops
    // accepting): the accept policy refuses at the configured limit first.
    connectionLimit = UInt32(
      min(Int(Int32.max), (configuration.connectionLimit + 1) * Int(threads)))
    perIPLimit = UInt32(configuration.connectionsPerIP)
    timeoutSeconds = UInt32(configuration.connectionTimeoutSeconds)
    memoryLimit = configuration.memoryLimitPerConnection
  }
}
