// C helpers for the parts of libmicrohttpd (0.9.75) that Swift cannot call or import.
// Only the Swift module MicroHTTPServer imports this; every helper is prefixed `cmhd_`.
#ifndef CMICROHTTPD_SHIM_H
#define CMICROHTTPD_SHIM_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

/// Signature of MHD_OPTION_URI_LOG_CALLBACK. The header documents it only in prose, so Swift
/// has no typedef to name.
typedef void *(*cmhd_uri_log_callback)(void *cls, const char *uri,
                                       struct MHD_Connection *connection);

/// Why: MHD_OPTION_UNESCAPE_CALLBACK wants a function, and MHD's default one percent-decodes
/// the path and query arguments in place. We read the raw request target from the URI log
/// callback and decode only what the application asks for, so MHD's pass is wasted work.
/// Returning the unchanged length keeps every string as received.
static inline size_t cmhd_unescape_nothing(void *cls, struct MHD_Connection *connection,
                                           char *value) {
  (void)cls;
  (void)connection;
  return strlen(value);
}

/// The callbacks and their `cls`, gathered so that the option list below stays readable.
struct cmhd_callbacks {
  MHD_AccessHandlerCallback access;
  MHD_RequestCompletedCallback completed;
  cmhd_uri_log_callback uri_log;
  MHD_NotifyConnectionCallback notify_connection;
  MHD_AcceptPolicyCallback accept_policy;
  MHD_LogCallback logger;  // NULL: MHD_OPTION_EXTERNAL_LOGGER is left unset
  void *cls;               // the same context for every callback
};

/// Why: MHD_start_daemon is variadic (an MHD_OPTION list ended by MHD_OPTION_END), which Swift
/// cannot call. This builds the one option list the server uses.
///
/// - listen_fd: a bound, listening socket made by the caller (MHD_OPTION_LISTEN_SOCKET), so bind
///   errors such as EADDRINUSE reach Swift with their errno instead of a bare NULL.
/// - thread_pool_size: MHD_OPTION_THREAD_POOL_SIZE; must be >= 2 with MHD_USE_EPOLL (a pool of 1
///   silently becomes the single-thread epoll mode).
/// - connection_limit: MHD_OPTION_CONNECTION_LIMIT, which MHD splits evenly between its worker
///   threads and enforces by leaving connections in the listen backlog. The caller passes a
///   value its own accept policy never lets MHD reach, so that a connection over the limit is
///   refused at once instead.
/// - per_ip_limit: MHD_OPTION_PER_IP_CONNECTION_LIMIT; 0 means no cap. MHD closes a connection
///   over it right after accepting it.
static inline struct MHD_Daemon *cmhd_start_daemon(
  unsigned int flags, int listen_fd, unsigned int thread_pool_size,
  unsigned int connection_limit, unsigned int per_ip_limit, unsigned int timeout_seconds,
  size_t memory_limit, struct cmhd_callbacks callbacks)
{
  // Each value is passed with the exact type MHD reads with va_arg.
  // MHD_OPTION_EXTERNAL_LOGGER may not be given a NULL function, hence two calls.
  if (NULL == callbacks.logger)
    return MHD_start_daemon(
      flags, 0, callbacks.accept_policy, callbacks.cls, callbacks.access, callbacks.cls,
      MHD_OPTION_LISTEN_SOCKET, (MHD_socket)listen_fd,
      MHD_OPTION_THREAD_POOL_SIZE, thread_pool_size,
      MHD_OPTION_CONNECTION_LIMIT, connection_limit,
      MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_ip_limit,
      MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
      MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_limit,
      MHD_OPTION_UNESCAPE_CALLBACK, &cmhd_unescape_nothing, (void *)NULL,
      MHD_OPTION_NOTIFY_COMPLETED, callbacks.completed, callbacks.cls,
      MHD_OPTION_URI_LOG_CALLBACK, callbacks.uri_log, callbacks.cls,
      MHD_OPTION_NOTIFY_CONNECTION, callbacks.notify_connection, callbacks.cls,
      MHD_OPTION_END);
  return MHD_start_daemon(
    flags, 0, callbacks.accept_policy, callbacks.cls, callbacks.access, callbacks.cls,
    MHD_OPTION_EXTERNAL_LOGGER, callbacks.logger, callbacks.cls,  // first, or MHD logs to stderr
    MHD_OPTION_LISTEN_SOCKET, (MHD_socket)listen_fd,
    MHD_OPTION_THREAD_POOL_SIZE, thread_pool_size,
    MHD_OPTION_CONNECTION_LIMIT, connection_limit,
    MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_ip_limit,
    MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
    MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_limit,
    MHD_OPTION_UNESCAPE_CALLBACK, &cmhd_unescape_nothing, (void *)NULL,
    MHD_OPTION_NOTIFY_COMPLETED, callbacks.completed, callbacks.cls,
    MHD_OPTION_URI_LOG_CALLBACK, callbacks.uri_log, callbacks.cls,
    MHD_OPTION_NOTIFY_CONNECTION, callbacks.notify_connection, callbacks.cls,
    MHD_OPTION_END);
}

/// Why: MHD_get_connection_info is variadic. Returns the peer address of a connection
/// (MHD_CONNECTION_INFO_CLIENT_ADDRESS), NULL if unknown.
static inline const struct sockaddr *cmhd_client_address(struct MHD_Connection *connection) {
  const union MHD_ConnectionInfo *info =
    MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
  return (NULL == info) ? NULL : info->client_addr;
}

/// Why: MHD_get_connection_info is variadic. The connection's socket
/// (MHD_CONNECTION_INFO_CONNECTION_FD), -1 if unknown.
static inline int cmhd_connection_fd(struct MHD_Connection *connection) {
  const union MHD_ConnectionInfo *info =
    MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
  return (NULL == info) ? -1 : (int)info->connect_fd;
}

/// Why: MHD_get_connection_info is variadic. What the connection-notify callback stored for this
/// connection (MHD_CONNECTION_INFO_SOCKET_CONTEXT), NULL if nothing.
static inline void *cmhd_socket_context(struct MHD_Connection *connection) {
  const union MHD_ConnectionInfo *info =
    MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
  return (NULL == info) ? NULL : info->socket_context;
}

/// Why: MHD_get_connection_info is variadic. Bytes from the start of the request line to the
/// end of the empty line after the headers (MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE), 0 if
/// unknown.
static inline size_t cmhd_request_header_size(struct MHD_Connection *connection) {
  const union MHD_ConnectionInfo *info =
    MHD_get_connection_info(connection, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
  return (NULL == info) ? 0 : info->header_size;
}

/// Why: MHD_set_response_options is variadic. Marks a response as HTTP/1.0-compatible, so that
/// one of unknown size is ended by closing the connection instead of chunked. 0.9.75 sends a
/// chunked body's last chunk (`0\r\n\r\n`) even in answer to HEAD, which a kept-alive client
/// then reads as the start of its next answer; a HEAD answer made this way carries no byte of body.
static inline enum MHD_Result cmhd_end_by_close(struct MHD_Response *response) {
  return MHD_set_response_options(response, MHD_RF_HTTP_1_0_COMPATIBLE_STRICT, MHD_RO_END);
}

/// Why: MHD_get_connection_info is variadic. The status of the response queued on the
/// connection (MHD_CONNECTION_INFO_HTTP_STATUS), 0 if none: how a request that libmicrohttpd
/// answered on its own (431, a malformed Content-Length) was answered.
static inline unsigned int cmhd_http_status(struct MHD_Connection *connection) {
  const union MHD_ConnectionInfo *info =
    MHD_get_connection_info(connection, MHD_CONNECTION_INFO_HTTP_STATUS);
  return (NULL == info) ? 0 : info->http_status;
}

/// Why: MHD_SIZE_UNKNOWN is a macro with a cast, which Swift does not import.
static inline uint64_t cmhd_size_unknown(void) { return MHD_SIZE_UNKNOWN; }

/// Why: MHD_CONTENT_READER_END_OF_STREAM is a macro with a cast, which Swift does not import.
static inline ssize_t cmhd_content_reader_end_of_stream(void) {
  return MHD_CONTENT_READER_END_OF_STREAM;
}

/// Why: MHD_CONTENT_READER_END_WITH_ERROR is a macro with a cast, which Swift does not import.
static inline ssize_t cmhd_content_reader_end_with_error(void) {
  return MHD_CONTENT_READER_END_WITH_ERROR;
}

// Event streams that leave libmicrohttpd (see HTTPStream+State.swift and StreamSockets.swift).

/// Why: fcntl is variadic. Takes a suspended connection's socket away from libmicrohttpd: the
/// socket moves to a new descriptor number, returned to the caller, who owns it from now on;
/// the number libmicrohttpd holds becomes a duplicate of `stand_in` (an unconnected TCP socket,
/// see cmhd_stand_in_socket), so that what libmicrohttpd does with its number afterwards (shut
/// it down, set TCP options, send the chunked body's end, close it) touches the stand-in and
/// never the client's connection. -1 (errno set, nothing changed) on failure.
///
/// Only for a connection libmicrohttpd has suspended: a suspended connection is out of its epoll
/// set and its socket is left alone until it is resumed, so nothing races with the swap.
static inline int cmhd_take_socket(int fd, int stand_in) {
  int taken = fcntl(fd, F_DUPFD_CLOEXEC, 0);
  if (taken < 0) return -1;
  if (dup3(stand_in, fd, O_CLOEXEC) < 0) {
    int saved = errno;
    close(taken);
    errno = saved;
    return -1;
  }
  return taken;
}

/// An unconnected TCP socket to stand in for the sockets taken by cmhd_take_socket: TCP options
/// can be set on it (libmicrohttpd sets TCP_NODELAY and TCP_CORK around its sends and logs a
/// failure), shutting it down does nothing, and sending on it fails at once with EPIPE.
static inline int cmhd_stand_in_socket(void) {
  return socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
}

/// Why: TCP_NODELAY lives in netinet/tcp.h, which Swift's Glibc module does not import. An
/// event is one small write: it must leave at once, not wait for the previous one's ACK.
static inline int cmhd_set_nodelay(int fd) {
  int on = 1;
  return setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
}

/// Why: struct epoll_event is packed on x86-64, which Swift does not import reliably; these
/// take and give its two fields separately. `token` is the caller's 64-bit value.
static inline int cmhd_epoll_control(int epoll_fd, int operation, int fd, uint32_t events,
                                     uint64_t token) {
  struct epoll_event event;
  memset(&event, 0, sizeof event);
  event.events = events;
  event.data.u64 = token;
  return epoll_ctl(epoll_fd, operation, fd, &event);
}

/// epoll_wait into two arrays of `capacity` entries: the tokens and the event bits. Returns the
/// count, or -1 (errno set).
static inline int cmhd_epoll_wait(int epoll_fd, uint64_t *tokens, uint32_t *events,
                                  int capacity, int timeout_ms) {
  struct epoll_event ready[256];
  if (capacity > 256) capacity = 256;
  int count = epoll_wait(epoll_fd, ready, capacity, timeout_ms);
  for (int index = 0; index < count; index++) {
    tokens[index] = ready[index].data.u64;
    events[index] = ready[index].events;
  }
  return count;
}

/// Why: prctl is variadic (and pthread_setname_np needs _GNU_SOURCE). Names the calling thread,
/// as `top -H` and debuggers show it (15 bytes at most).
static inline void cmhd_name_thread(const char *name) { (void)prctl(PR_SET_NAME, name, 0, 0, 0); }

/// A non-blocking eventfd, to wake a thread waiting in epoll_wait.
static inline int cmhd_eventfd(void) { return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK); }

/// Why: the EPOLL* and EPOLL_CTL_* names are enums or macros Swift imports inconsistently.
static inline uint32_t cmhd_epollin(void) { return EPOLLIN; }
static inline uint32_t cmhd_epollout(void) { return EPOLLOUT; }
static inline uint32_t cmhd_epoll_peer_gone(void) { return EPOLLRDHUP | EPOLLHUP | EPOLLERR; }
static inline uint32_t cmhd_epollrdhup(void) { return EPOLLRDHUP; }
static inline int cmhd_epoll_add(void) { return EPOLL_CTL_ADD; }
static inline int cmhd_epoll_modify(void) { return EPOLL_CTL_MOD; }
static inline int cmhd_epoll_delete(void) { return EPOLL_CTL_DEL; }

#endif
