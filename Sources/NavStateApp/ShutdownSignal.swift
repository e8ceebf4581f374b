#if canImport(Glibc)
  import Glibc
#endif

/// SIGINT and SIGTERM (stop), and SIGHUP (reload the graph files), taken synchronously with
/// `sigwait`.
///
/// The signals are blocked before any thread starts, so every thread inherits the mask and the
/// signal can only be taken by `wait()`. This works whatever mask the parent process left us
/// (a test runner may start the server with signals blocked, which defeats signal handlers).
public enum ShutdownSignal {
  private static func signalSet() -> sigset_t {
    var set = sigset_t()
    sigemptyset(&set)
    sigaddset(&set, SIGINT)
    sigaddset(&set, SIGTERM)
    sigaddset(&set, SIGHUP)
    return set
  }

  /// Call first thing, before any thread is started.
  package static func block() {
    var set = signalSet()
    pthread_sigmask(SIG_BLOCK, &set, nil)
  }

  /// Blocks the calling thread until SIGINT, SIGTERM or SIGHUP arrives; returns its name.
  package static func wait() -> String {
    var set = signalSet()
    var received: Int32 = 0
    while sigwait(&set, &received) != 0 {}
    switch received {
    case SIGINT: return "SIGINT"
    case SIGHUP: return "SIGHUP"
    default: return "SIGTERM"
    }
  }
}
