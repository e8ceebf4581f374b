/// An MHD object pointer (`struct MHD_Connection *`, `struct MHD_Daemon *`) that may cross
/// threads.
///
/// Unchecked because the pointer itself is just an address: who may use it, and when, is decided
/// by the lock of the value that holds it (a stream's suspension protocol, the server's
/// lifecycle), and libmicrohttpd documents the calls made through it (MHD_resume_connection,
/// MHD_quiesce_daemon, MHD_stop_daemon) as callable from any thread.
struct UnsafeHandle: @unchecked Sendable {
  let pointer: OpaquePointer
}
