/* The ceiling NavState is measured against: libmicrohttpd answering any request with ~60 bytes of JSON,
 * epoll with an internal thread pool, as navstate starts it. Usage: hello PORT THREADS */
#include <microhttpd.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char body[] = "{\"status\":\"ok\",\"service\":\"baseline\",\"version\":1,\"pad\":\"xx\"}";
static struct MHD_Response *response;

static enum MHD_Result answer(void *cls, struct MHD_Connection *connection, const char *url,
                              const char *method, const char *version, const char *upload_data,
                              size_t *upload_data_size, void **con_cls) {
  (void)cls; (void)url; (void)method; (void)version; (void)upload_data;
  /* Answer on the second call, as navstate does, so keep-alive behaves the same. */
  if (*con_cls == NULL) { *con_cls = (void *)1; return MHD_YES; }
  /* Read a request body to its end, as navstate does, so that the workloads' POSTs can be sent
   * here too: the baseline then gets the very requests navstate gets, from the same script. */
  if (*upload_data_size != 0) { *upload_data_size = 0; return MHD_YES; }
  return MHD_queue_response(connection, MHD_HTTP_OK, response);
}

int main(int argc, char **argv) {
  /* SIGINT and SIGTERM are blocked before libmicrohttpd starts its threads, which inherit the
   * mask, and taken here with sigwait: a handler with `while (!stop) pause();` never wakes when
   * the signal is delivered to one of those threads instead, and the process waits forever. */
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, NULL);
  unsigned port = argc > 1 ? (unsigned)atoi(argv[1]) : 8081;
  unsigned threads = argc > 2 ? (unsigned)atoi(argv[2]) : 2;
  response = MHD_create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_PERSISTENT);
  MHD_add_response_header(response, "Content-Type", "application/json");
  struct MHD_Daemon *daemon = MHD_start_daemon(
      MHD_USE_EPOLL | MHD_USE_INTERNAL_POLLING_THREAD, (uint16_t)port, NULL, NULL, &answer, NULL,
      MHD_OPTION_THREAD_POOL_SIZE, threads, MHD_OPTION_CONNECTION_LIMIT, 4096u,
      MHD_OPTION_CONNECTION_TIMEOUT, 60u, MHD_OPTION_END);
  if (daemon == NULL) { fprintf(stderr, "cannot start on port %u\n", port); return 1; }
  printf("listening on http://127.0.0.1:%u\n", port);
  fflush(stdout);
  int received = 0;
  while (sigwait(&stop_signals, &received) != 0) {}
  MHD_stop_daemon(daemon);
  MHD_destroy_response(response);
  return 0;
}
