internal import CMicroHTTPD
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// An HTTP/1.1 server on libmicrohttpd: a pool of worker threads, each with its own epoll loop,
/// calling one ``HTTPHandler``. It listens from `init` until ``shutdown(gracePeriodSeconds:)``.
public final class HTTPServer: Sendable {
  /// The port actually bound (differs from the configuration's when that was 0).
  public let port: UInt16
  let context: ServerContext
  private let acceptor: ConnectionAcceptor
  private let lifecycle: Locked<Lifecycle>
  private let hooks = Locked<[@Sendable () -> Void]>([])

  private enum Lifecycle: Sendable {
    case running(UnsafeHandle)
    case stopping
    case stopped
  }

  /// Starts listening. Throws ``HTTPServerError`` when the configuration is out of range, the
  /// address cannot be bound (e.g. ``HTTPServerError/addressInUse(host:port:)``), or MHD fails.
  public init(configuration: HTTPServerConfiguration, handler: any HTTPHandler)
    throws(HTTPServerError)
  {
    let options = try DaemonOptions(configuration)
    let socket = try ListenSocket.open(host: configuration.host, port: configuration.port)
    let context = ServerContext(
      configuration: configuration, handler: handler, streamThreads: Int(options.threads))
    // Retained for MHD's callbacks; released in shutdown after MHD_stop_daemon returns.
    let cls = Unmanaged.passRetained(context).toOpaque()
    var flags =
      MHD_USE_EPOLL.rawValue | MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_ITC.rawValue
      | MHD_ALLOW_SUSPEND_RESUME.rawValue
    if socket.isIPv6 { flags |= MHD_USE_IPv6.rawValue }
    if configuration.errorLog != nil { flags |= MHD_USE_ERROR_LOG.rawValue }
    let callbacks = cmhd_callbacks(
      access: mhdAccess, completed: mhdRequestCompleted, uri_log: mhdRequestStarted,
      notify_connection: mhdConnectionChanged, accept_policy: mhdAcceptPolicy,
      logger: configuration.errorLog == nil ? nil : mhdLog, cls: cls)
    let idleListener = ConnectionAcceptor.idleListener()
    guard idleListener >= 0 else {
      _ = close(socket.descriptor)
      Unmanaged<ServerContext>.fromOpaque(cls).release()
      throw .socketFailed(
        operation: "socket(AF_UNIX)", errno: errno, reason: ListenSocket.message(errno))
    }
    let daemon = cmhd_start_daemon(
      flags, idleListener, options.threads, options.connectionLimit, options.perIPLimit,
      options.timeoutSeconds, options.memoryLimit, callbacks)
    guard let daemon else {
      // MHD closes a given listening socket on some of its failure paths and not on others, so
      // the idle one it was given is left alone rather than risk closing a descriptor number
      // that was reused. The server's own socket was never MHD's.
      _ = close(socket.descriptor)
      Unmanaged<ServerContext>.fromOpaque(cls).release()
      throw .daemonStartFailed
    }
    guard
      let acceptor = ConnectionAcceptor(
        listener: socket.descriptor, daemon: UnsafeHandle(pointer: daemon))
    else {
      MHD_stop_daemon(daemon)
      _ = close(socket.descriptor)
      Unmanaged<ServerContext>.fromOpaque(cls).release()
      throw .daemonStartFailed
    }
    context.daemon.withLock { $0 = UnsafeHandle(pointer: daemon) }
    context.sockets.start()
    self.port = ListenSocket.port(of: socket.descriptor) ?? configuration.port
    self.acceptor = acceptor
    self.context = context
    self.lifecycle = Locked(.running(UnsafeHandle(pointer: daemon)))
    context.connections.startSweeping()
    guard acceptor.start() else {
      shutdown(gracePeriodSeconds: 0)
      throw .daemonStartFailed
    }
  }

  deinit {
    shutdown(gracePeriodSeconds: 0)
  }

  /// Registers `hook` to run at the start of ``shutdown(gracePeriodSeconds:)``, after the server
  /// stopped accepting connections and before streams are finished: the place for an
  /// application to end its streams its own way (e.g. a last event).
  public func onShutdown(_ hook: @escaping @Sendable () -> Void) {
    hooks.withLock { $0.append(hook) }
  }

  /// Streams currently attached to a connection.
  public var openStreamCount: Int {
    context.streams.count
  }

  /// Requests whose headers have arrived and whose response is not complete yet.
  public var inFlightRequestCount: Int {
    context.inFlight.load(ordering: .acquiring)
  }

  /// Stops the server gracefully and returns once it has stopped. Idempotent: later (or
  /// concurrent) calls wait for the first to finish.
  ///
  /// 1. Stop accepting (the acceptor stops, MHD_quiesce_daemon; the listening sockets are
  ///    closed). Later responses carry
  ///    `Connection: close`.
  /// 2. Run the ``onShutdown(_:)`` hooks.
  /// 3. Finish every open stream (what is buffered is still sent, then the body ends cleanly).
  /// 4. Wait, up to `gracePeriodSeconds`, for in-flight requests and streams to complete.
  /// 5. Abort what is left: streams end with an error, suspended connections are resumed (MHD
  ///    must not be stopped with a suspended connection), handed-over sockets are closed.
  /// 6. MHD_stop_daemon, which closes every connection; then stop the stream loops (closing any
  ///    socket still open) and release the callbacks' context.
  ///
  /// Must not be called from a handler, a hook or an `onClose` (it waits for the worker threads
  /// those run on).
  public func shutdown(gracePeriodSeconds: Double = 5) {
    let handle: UnsafeHandle? = lifecycle.withLock { state in
      guard case .running(let daemon) = state else { return nil }
      state = .stopping
      return daemon
    }
    guard let daemon = handle?.pointer else {
      Self.wait(until: .now + .seconds(3600)) { self.isStopped }
      return
    }
    context.stopping.store(true, ordering: .relaxed)
    acceptor.stop()
    let listener = MHD_quiesce_daemon(daemon)
    if listener >= 0 { _ = close(listener) }

    for hook in hooks.withLock({ $0 }) { hook() }

    context.streams.finishAll()
    let grace = Duration.milliseconds(Int64(max(0, gracePeriodSeconds) * 1000))
    Self.wait(until: .now + grace) {
      self.context.inFlight.load(ordering: .acquiring) == 0 && self.context.streams.count == 0
    }

    context.streams.abortAll()
    context.connections.stopSweeping()
    context.daemon.withLock { $0 = nil }
    MHD_stop_daemon(daemon)
    context.sockets.stop()
    Unmanaged.passUnretained(context).release()
    lifecycle.withLock { $0 = .stopped }
  }

  private var isStopped: Bool {
    lifecycle.withLock { state in
      if case .stopped = state { return true }
      return false
    }
  }

  /// Polls `condition` every 2 ms until it holds or `deadline` passes. Only shutdown waits, so a
  /// poll is simpler than a condition variable fed by every request.
  private static func wait(until deadline: ContinuousClock.Instant, _ condition: () -> Bool) {
    while !condition() && ContinuousClock.now < deadline {
      usleep(2000)
    }
  }
}
