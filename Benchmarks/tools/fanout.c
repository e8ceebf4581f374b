/* Event streams at scale, measured from one client process that costs as little as it can:
 * every stream is a raw socket in one epoll set, read into one buffer; requests are written by
 * hand. Streams are opened over several loopback source addresses (127.0.0.2, 127.0.0.3, ...),
 * 5,000 to an address, so that one address's ports are never the limit.
 *
 *   fanout streams HOST PORT N ROUNDS [SERVER_PID]
 *     N streams on one session: the time to open them, the server's RSS per stream (with
 *     SERVER_PID), then ROUNDS pushes: the delay from writing each push request to its event
 *     arriving on each stream (p50, p99, max over every delivery), and this client's floor: the
 *     time it takes to read an event from all N streams once all of them are readable.
 *   fanout sessions HOST PORT SESSIONS PER_SESSION ROUNDS
 *     SESSIONS sessions with PER_SESSION streams each; every round pushes to all sessions at once
 *     (the requests written back to back over 8 connections) and measures each delivery from
 *     its own session's request.
 *
 * With FANOUT_SHARES=1, each session also gets a follow share, and every other stream opens
 * with the share's token (what a share's stream costs).
 *
 * Prints `key value...` lines (Benchmarks/streams reads them). Every wait is bounded: a stall
 * of 30 s ends the run with status 1. Built by Benchmarks/streams with `cc -O2`. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define PER_SOURCE 5000
#define STALL_SECONDS 30.0
#define CONTROL_CONNECTIONS 8

static const char *host;
static int port;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static void fail(const char *format, ...) {
  va_list arguments;
  va_start(arguments, format);
  fprintf(stderr, "fanout: ");
  vfprintf(stderr, format, arguments);
  fprintf(stderr, "\n");
  va_end(arguments);
  exit(1);
}

static int connect_from(int index, int blocking) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | (blocking ? 0 : SOCK_NONBLOCK), 0);
  if (fd < 0) fail("socket: %s", strerror(errno));
  /* The port is picked at connect, per destination: bound first, every source address would
   * share one range of ports with the thousands a previous run left in TIME_WAIT. */
  int on = 1;
  setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &on, sizeof on);
  struct sockaddr_in source = {.sin_family = AF_INET};
  source.sin_addr.s_addr = htonl(0x7f000002 + index / PER_SOURCE);
  if (bind(fd, (struct sockaddr *)&source, sizeof source) != 0)
    fail("bind to 127.0.0.%d: %s", 2 + index / PER_SOURCE, strerror(errno));
  struct sockaddr_in server = {.sin_family = AF_INET, .sin_port = htons(port)};
  inet_pton(AF_INET, host, &server.sin_addr);
  if (connect(fd, (struct sockaddr *)&server, sizeof server) != 0 && errno != EINPROGRESS)
    fail("connect: %s", strerror(errno));
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
  return fd;
}

static void write_all(int fd, const char *data, size_t length) {
  while (length > 0) {
    ssize_t sent = send(fd, data, length, MSG_NOSIGNAL);
    if (sent < 0 && errno == EINTR) continue;
    if (sent < 0 && errno == EAGAIN) {
      usleep(100);
      continue;
    }
    if (sent <= 0) fail("send: %s", strerror(errno));
    data += sent;
    length -= (size_t)sent;
  }
}

/* One answer on a blocking keep-alive connection (answers to requests written back to back
 * arrive back to back: what follows one is kept for the next): its status, and its body copied
 * into `body` (NUL-terminated, cut at `capacity`). */
struct connection {
  int fd;
  char buffer[1 << 16];
  size_t have;
};

static int read_answer(struct connection *connection, char *body, size_t capacity) {
  char *buffer = connection->buffer;
  char *end = NULL;
  double started = now();
  while (!(end = memmem(buffer, connection->have, "\r\n\r\n", 4))) {
    if (connection->have >= sizeof connection->buffer - 1) fail("an answer's head is too long");
    ssize_t got = recv(connection->fd, buffer + connection->have,
                       sizeof connection->buffer - connection->have - 1, 0);
    if (got <= 0) fail("an answer did not arrive (%s)", got == 0 ? "closed" : strerror(errno));
    connection->have += (size_t)got;
    if (now() - started > STALL_SECONDS) fail("an answer took over %.0f s", STALL_SECONDS);
  }
  *end = 0;
  int status = atoi(buffer + 9);
  size_t length = 0;
  char *field = strcasestr(buffer, "\r\ncontent-length:");
  if (field) length = strtoul(field + 17, NULL, 10);
  size_t head = (size_t)(end + 4 - buffer);
  if (head + length >= sizeof connection->buffer) fail("an answer is too long");
  while (connection->have < head + length) {
    ssize_t got = recv(connection->fd, buffer + connection->have,
                       sizeof connection->buffer - connection->have - 1, 0);
    if (got <= 0) fail("an answer's body was cut short");
    connection->have += (size_t)got;
  }
  size_t copy = length < capacity - 1 ? length : capacity - 1;
  memcpy(body, buffer + head, copy);
  body[copy] = 0;
  connection->have -= head + length;
  memmove(buffer, buffer + head + length, connection->have);
  return status;
}

static void json_string(const char *json, const char *key, char *out, size_t capacity) {
  char pattern[64];
  snprintf(pattern, sizeof pattern, "\"%s\":\"", key);
  const char *start = strstr(json, pattern);
  if (!start) fail("no %s in %s", key, json);
  start += strlen(pattern);
  const char *stop = strchr(start, '"');
  size_t length = (size_t)(stop - start) < capacity - 1 ? (size_t)(stop - start) : capacity - 1;
  memcpy(out, start, length);
  out[length] = 0;
}

struct session {
  char id[64];
  char token[64];
  char share_token[64]; /* a follow share's, when FANOUT_SHARES=1 */
  double pushed; /* when this round's push request was written */
};

static struct connection control[CONTROL_CONNECTIONS];

static void create_session(struct session *session) {
  static const char request[] =
      "POST /v1/sessions HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\n"
      "Content-Length: 2\r\n\r\n{}";
  char body[4096];
  write_all(control[0].fd, request, sizeof request - 1);
  int status = read_answer(&control[0], body, sizeof body);
  if (status != 201) fail("creating a session answered %d: %s", status, body);
  json_string(body, "id", session->id, sizeof session->id);
  json_string(body, "token", session->token, sizeof session->token);
  session->share_token[0] = 0;
  const char *shares = getenv("FANOUT_SHARES");
  if (!shares || strcmp(shares, "1") != 0) return;
  /* A follow share: every other stream of the session opens with its token. */
  static const char share_body[] = "{\"mode\":\"follow\",\"label\":\"bench\"}";
  char share_request[512];
  int length = snprintf(share_request, sizeof share_request,
                        "POST /v1/sessions/%s/shares HTTP/1.1\r\nHost: bench\r\n"
                        "Authorization: Bearer %s\r\nContent-Type: application/json\r\n"
                        "Content-Length: %zu\r\n\r\n%s",
                        session->id, session->token, sizeof share_body - 1, share_body);
  write_all(control[0].fd, share_request, (size_t)length);
  status = read_answer(&control[0], body, sizeof body);
  if (status != 201) fail("creating a share answered %d: %s", status, body);
  json_string(body, "token", session->share_token, sizeof session->share_token);
}

static int format_call(char *out, size_t capacity, const struct session *session,
                       const char *operation, const char *json) {
  return snprintf(out, capacity,
                  "POST /v1/sessions/%s/%s HTTP/1.1\r\nHost: bench\r\nAuthorization: Bearer %s\r\n"
                  "Content-Type: application/json\r\nPrefer: return=minimal\r\n"
                  "Content-Length: %zu\r\n\r\n%s",
                  session->id, operation, session->token, strlen(json), json);
}

/* Sends one operation to every session (spread over the control connections, written back to
 * back, each request's time noted), then reads every answer. */
static void call_all(struct session *sessions, int count, const char *operation, const char *json) {
  char request[1024], body[4096];
  for (int index = 0; index < count; index++) {
    int length = format_call(request, sizeof request, &sessions[index], operation, json);
    sessions[index].pushed = now();
    write_all(control[index % CONTROL_CONNECTIONS].fd, request, (size_t)length);
  }
  for (int index = 0; index < count; index++) {
    int status = read_answer(&control[index % CONTROL_CONNECTIONS], body, sizeof body);
    if (status != 200) fail("%s answered %d: %s", operation, status, body);
  }
}

struct stream {
  int fd;
  int session;
  int state; /* 0: connecting, 1: request sent, 2: open (its reset arrived) */
  char tail[32]; /* the last bytes read, so that a marker split between two reads is seen */
  int tail_length;
  double arrived;
};

static struct stream *streams;
static int stream_count;
static int epoll_fd;
static struct epoll_event events[4096];
static char buffer[1 << 16];

/* Reads what `stream` has; true if `marker` arrived in it. */
static int drain(struct stream *stream, const char *marker) {
  int seen = 0;
  size_t marker_length = strlen(marker);
  for (;;) {
    memcpy(buffer, stream->tail, (size_t)stream->tail_length);
    size_t asked = sizeof buffer - (size_t)stream->tail_length;
    ssize_t got = recv(stream->fd, buffer + stream->tail_length, asked, 0);
    if (got == 0) fail("a stream was closed by the server");
    if (got < 0) {
      if (errno == EAGAIN || errno == EINTR) return seen;
      fail("recv: %s", strerror(errno));
    }
    size_t total = (size_t)stream->tail_length + (size_t)got;
    if (memmem(buffer, total, marker, marker_length)) seen = 1;
    size_t keep = total < sizeof stream->tail ? total : sizeof stream->tail;
    memcpy(stream->tail, buffer + total - keep, keep);
    stream->tail_length = (int)keep;
    /* Less than asked for: the socket is empty (one recv, not a second one to hear EAGAIN; the
     * level-triggered epoll set reports it again if more came meanwhile). */
    if ((size_t)got < asked) return seen;
  }
}

/* Waits until `marker` has arrived on every stream, noting when on each (when epoll_wait
 * returned it). After a short batch it sleeps 0.2 ms before waiting again, so that arrivals
 * gather: waking for every one would cost this client a context switch, and the server a
 * wake-up, per stream (adds at most 0.2 ms to a delay). */
static void await_all(const char *marker) {
  int waiting = stream_count;
  for (int index = 0; index < stream_count; index++) streams[index].arrived = 0;
  double last_progress = now();
  const struct timespec gather = {.tv_nsec = 200000};
  while (waiting > 0) {
    int ready = epoll_wait(epoll_fd, events, 4096, 1000);
    double at = now();
    for (int index = 0; index < ready; index++) {
      struct stream *stream = &streams[events[index].data.u32];
      if (drain(stream, marker) && stream->arrived == 0) {
        stream->arrived = at;
        waiting--;
      }
    }
    if (ready > 0) last_progress = at;
    if (at - last_progress > STALL_SECONDS)
      fail("%d of %d streams never got %s", waiting, stream_count, marker);
    if (ready < 256 && waiting > 0) nanosleep(&gather, NULL);
  }
}

/* Opens every stream (at most 500 connecting at once) and waits for each one's reset event. */
static void open_streams(struct session *sessions, int per_session) {
  char request[1024];
  int opened = 0, next = 0, window = 500;
  double last_progress = now();
  while (opened < stream_count) {
    while (next < stream_count && next - opened < window) {
      struct stream *stream = &streams[next];
      stream->fd = connect_from(next, 0);
      stream->session = next / per_session;
      stream->state = 0;
      stream->tail_length = 0;
      struct epoll_event event = {.events = EPOLLIN | EPOLLOUT | EPOLLET, .data.u32 = next};
      if (epoll_ctl(epoll_fd, EPOLL_CTL_ADD, stream->fd, &event) != 0)
        fail("epoll_ctl: %s", strerror(errno));
      next++;
    }
    int ready = epoll_wait(epoll_fd, events, 4096, 1000);
    for (int index = 0; index < ready; index++) {
      struct stream *stream = &streams[events[index].data.u32];
      if (stream->state == 0 && (events[index].events & (EPOLLOUT | EPOLLIN))) {
        const struct session *session = &sessions[stream->session];
        const char *token =
            session->share_token[0] && events[index].data.u32 % 2 ? session->share_token
                                                                  : session->token;
        int length = snprintf(request, sizeof request,
                              "GET /v1/sessions/%s/events/stream HTTP/1.1\r\nHost: bench\r\n"
                              "Authorization: Bearer %s\r\n\r\n",
                              session->id, token);
        write_all(stream->fd, request, (size_t)length);
        stream->state = 1;
      }
      if (stream->state == 1 && (events[index].events & EPOLLIN) &&
          drain(stream, "event: reset")) {
        stream->state = 2;
        opened++;
        /* Level-triggered from now on, and only for reading. */
        struct epoll_event event = {.events = EPOLLIN, .data.u32 = events[index].data.u32};
        epoll_ctl(epoll_fd, EPOLL_CTL_MOD, stream->fd, &event);
      }
      last_progress = now();
    }
    if (now() - last_progress > STALL_SECONDS)
      fail("%d of %d streams opened, then nothing for %.0f s", opened, stream_count, STALL_SECONDS);
  }
}

static long rss_kib(int pid) {
  char path[64], line[256];
  snprintf(path, sizeof path, "/proc/%d/status", pid);
  FILE *file = fopen(path, "r");
  if (!file) return -1;
  long value = -1;
  while (fgets(line, sizeof line, file))
    if (strncmp(line, "VmRSS:", 6) == 0) value = strtol(line + 6, NULL, 10);
  fclose(file);
  return value;
}

/* CPU time (user + system) a process has used, in ms; -1 if unknown. */
static double cpu_ms(int pid) {
  char path[64], text[1024];
  snprintf(path, sizeof path, "/proc/%d/stat", pid);
  FILE *file = fopen(path, "r");
  if (!file) return -1;
  size_t length = fread(text, 1, sizeof text - 1, file);
  fclose(file);
  text[length] = 0;
  char *field = strrchr(text, ')'); /* the name may hold spaces */
  if (!field) return -1;
  unsigned long user = 0, system = 0;
  /* after ") ": state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime */
  if (sscanf(field + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &user, &system) != 2)
    return -1;
  return (double)(user + system) * 1000.0 / (double)sysconf(_SC_CLK_TCK);
}

static int compare(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double quantile(double *sorted, long count, double q) {
  long index = (long)(q * (double)count);
  if (index >= count) index = count - 1;
  return sorted[index] * 1000;
}

int main(int argc, char **argv) {
  if (argc < 6) {
    fprintf(stderr, "usage: fanout streams HOST PORT N ROUNDS [SERVER_PID]\n"
                    "       fanout sessions HOST PORT SESSIONS PER_SESSION ROUNDS\n");
    return 2;
  }
  int many = strcmp(argv[1], "sessions") == 0;
  host = argv[2];
  port = atoi(argv[3]);
  int session_count = many ? atoi(argv[4]) : 1;
  int per_session = many ? atoi(argv[5]) : atoi(argv[4]);
  int rounds = atoi(many ? (argc > 6 ? argv[6] : "3") : argv[5]);
  int server_pid = !many && argc > 6 ? atoi(argv[6]) : 0;
  stream_count = session_count * per_session;

  struct rlimit limit;
  getrlimit(RLIMIT_NOFILE, &limit);
  limit.rlim_cur = limit.rlim_max;
  setrlimit(RLIMIT_NOFILE, &limit);
  if ((rlim_t)stream_count + 100 > limit.rlim_cur)
    fail("%d streams need more descriptors than the %lu allowed", stream_count,
         (unsigned long)limit.rlim_cur);

  for (int index = 0; index < CONTROL_CONNECTIONS; index++) {
    control[index].fd = connect_from(0, 1);
    struct timeval timeout = {.tv_sec = 30};
    setsockopt(control[index].fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  }
  struct session *sessions = calloc((size_t)session_count, sizeof *sessions);
  for (int index = 0; index < session_count; index++) create_session(&sessions[index]);
  streams = calloc((size_t)stream_count, sizeof *streams);
  epoll_fd = epoll_create1(EPOLL_CLOEXEC);

  /* A few streams first (on a session of their own), so that what the server allocates once
   * (threads' stacks and arenas, tables) is not counted per stream. */
  long before = -1;
  if (server_pid) {
    struct session warm;
    create_session(&warm);
    struct stream *saved = streams;
    int saved_count = stream_count;
    streams = calloc(50, sizeof *streams);
    stream_count = 50;
    open_streams(&warm, 50);
    for (int index = 0; index < 50; index++) /* kept open, no longer read */
      epoll_ctl(epoll_fd, EPOLL_CTL_DEL, streams[index].fd, NULL);
    free(streams);
    streams = saved;
    stream_count = saved_count;
    usleep(500000);
    before = rss_kib(server_pid);
  }

  double started = now();
  open_streams(sessions, per_session);
  double took = now() - started;
  printf("open %d %.3f\n", stream_count, took);
  fflush(stdout);
  if (server_pid) {
    usleep(1000000);
    long after = rss_kib(server_pid);
    printf("rss %ld %ld %.2f\n", before, after, (double)(after - before) / stream_count);
    fflush(stdout);
  }

  double *delays = calloc((size_t)stream_count * (size_t)rounds, sizeof *delays);
  long delay_count = 0;
  double floor_ms = -1;
  double server_cpu = 0, client_cpu = 0;
  for (int round = 0; round <= rounds; round++) {
    char push[128];
    snprintf(push, sizeof push, "{\"route\":\"detail\",\"params\":{\"id\":%d}}", round);
    double server_before = server_pid ? cpu_ms(server_pid) : 0;
    double client_before = cpu_ms(getpid());
    call_all(sessions, session_count, "push", push);
    if (round == rounds) {
      /* The floor: every stream already holds its event when reading starts. */
      usleep(1000000);
      double floor_started = now();
      await_all("event: coordinator.started");
      floor_ms = (now() - floor_started) * 1000;
    } else {
      await_all("event: coordinator.started");
      if (server_pid) server_cpu += cpu_ms(server_pid) - server_before;
      client_cpu += cpu_ms(getpid()) - client_before;
      for (int index = 0; index < stream_count; index++) {
        double delay = streams[index].arrived - sessions[streams[index].session].pushed;
        delays[delay_count++] = delay > 0 ? delay : 0;
      }
    }
    call_all(sessions, session_count, "pop", "{}");
    await_all("event: coordinator.stopped");
    usleep(100000);
  }
  qsort(delays, (size_t)delay_count, sizeof *delays, compare);
  printf("%s %d %d %.2f %.2f %.2f %.2f\n", many ? "sessions" : "fanout", session_count,
         per_session, quantile(delays, delay_count, 0.5), quantile(delays, delay_count, 0.99),
         delays[delay_count - 1] * 1000, floor_ms);
  /* CPU time per fan-out (a push and its deliveries), the server's and this client's: on a
   * machine of C cores, no p99 can be below their sum divided by C. Clock ticks: coarse. */
  printf("cpu %.1f %.1f\n", server_pid ? server_cpu / rounds : -1, client_cpu / rounds);
  return 0;
}
