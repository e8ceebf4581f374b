#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// How an ``HTTPServer`` listens and what it allows each client.
public struct HTTPServerConfiguration: Sendable {
  /// The address to listen on: an IPv4 or IPv6 literal, or a name such as "localhost".
  public var host: String = "127.0.0.1"
  /// The TCP port; 0 picks a free one (read it back from ``HTTPServer/port``).
  public var port: UInt16 = 8080
  /// Worker threads, each with its own epoll loop (MHD_OPTION_THREAD_POOL_SIZE). Values below 2
  /// are raised to 2: libmicrohttpd 0.9.75 treats a pool of 1 as its single-thread epoll mode,
  /// which stalled under many ready keep-alive connections. As many stream loops (threads that
  /// write the event streams handed over by libmicrohttpd, see ``HTTPStream``) run beside them.
  public var threads: Int = HTTPServerConfiguration.processorCount
  /// Most connections open at once, idle and streaming ones included. One more is closed as soon
  /// as it is accepted (never left waiting in the listen backlog). Each open stream holds one,
  /// so this must stay above the number of streams expected; the process's file-descriptor limit
  /// (`ulimit -n`) must be higher still.
  public var connectionLimit: Int = 1024
  /// Most connections open at once from one IP address; 0 means no cap.
  public var connectionsPerIP: Int = 0
  /// Seconds a connection may stay idle (nothing received or sent) before it is closed; 0 means
  /// never. A stream waiting for its producer is suspended and does not time out.
  public var connectionTimeoutSeconds: Int = 60
  /// Seconds within which a request's header fields must have arrived after its request line,
  /// however slowly they trickle in; a late client gets a 408 and is closed. A connection with no
  /// request under way (new, or kept alive) must deliver a request line within
  /// `connectionTimeoutSeconds` plus this, or it is closed without an answer.
  public var headerTimeoutSeconds: Double = 10
  /// A body must arrive at this many bytes per second at least: its deadline, counted from the
  /// end of the headers, is `headerTimeoutSeconds` plus its declared length (the body cap, when
  /// chunked) divided by this.
  public var minimumBodyBytesPerSecond: Int = 4096
  /// The host names (without port) requests may name in `Host`; others are answered 421. Empty:
  /// any. Guards against DNS rebinding when the server is reached through a name.
  public var allowedHosts: [String] = []
  /// Memory each connection may use for the request line, headers and I/O buffers
  /// (MHD_OPTION_CONNECTION_MEMORY_LIMIT). The request line and headers must fit in it (a header
  /// block of up to about this many bytes is read), larger ones are answered 431. libmicrohttpd
  /// clears the whole pool before each request on a kept-alive connection, so its size is paid
  /// on every request: 16 KiB (the header limit of Node.js) rather than libmicrohttpd's 32 KiB
  /// saves 1,350 instructions a request, an eighth of a health check (`Benchmarks/instructions`).
  ///
  /// The pool lives as long as its connection, so it was most of what an open event stream cost
  /// (31.3 KiB of RSS each) until streams left libmicrohttpd once their head is sent (see
  /// ``HTTPStream``; about 1.2 KiB each now). Weighed first, measured with 2,000 streams parked in
  /// a C server on the same options: a smaller pool shrinks the header limit (16 KiB: 17.1 KiB a
  /// stream; 8 KiB: 9.9 at best, still over the 8 KiB wanted, since the page the request is read
  /// into and the page the header list is taken from, at the pool's two ends, are both touched);
  /// MHD_OPTION_CONNECTION_MEMORY_INCREMENT changes nothing (25.1 KiB at 256, 1,024 or 16,384
  /// bytes: the first read buffer is half the free pool whatever it is, and shrinking it zeroes
  /// the rest); a pool just over 32 KiB, which libmicrohttpd `mmap`s itself rather than
  /// `malloc`s, costs more (28.9 KiB against 25.1). The increment stays at its default.
  public var memoryLimitPerConnection: Int = 16 * 1024
  /// Largest request body accepted; larger ones are answered 413 "payload_too_large".
  public var maxBodyBytes: Int = 64 * 1024
  /// A larger body limit for some requests (method and target in, bytes out; nil: the
  /// default), such as an upload of many records to one route.
  public var largerBodyLimit: (@Sendable (_ method: String, _ target: String) -> Int?)? = nil
  /// Receives libmicrohttpd's own error messages (one line each, without a newline), sorted by
  /// kind. When nil, they are dropped.
  public var errorLog: (@Sendable (ServerLogMessage) -> Void)? = nil

  public init() {}

  static var processorCount: Int {
    max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
  }
}
