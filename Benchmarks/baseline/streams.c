/* The C baseline for event streams: what sending one event to many streams costs on this
 * machine, with nothing but `send`. It speaks just enough of NavState's API for
 * Benchmarks/tools/fanout.c: POST /v1/sessions (201, an id and a token), GET
 * /v1/sessions/ID/events/stream (a chunked head and a `reset` event, then the socket is kept),
 * POST /v1/sessions/ID/push and .../pop (one event to every stream of the session, sent by
 * THREADS threads, 256 streams a job, then 200). Requests are read by one epoll thread.
 *
 * Usage: streams PORT THREADS   (prints "listening on http://127.0.0.1:PORT")
 * Built by Benchmarks/streams with cc -O2 -pthread. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_SESSIONS 4096
#define JOB_SIZE 256

struct session {
  int *streams;
  int count, capacity;
};
static struct session sessions[MAX_SESSIONS];
static int session_count;

struct job {
  int session, start, end;
  const char *event;
  size_t length;
};
static struct job *jobs;
static int job_head, job_tail, job_capacity;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ready = PTHREAD_COND_INITIALIZER;

/* The two events, as chunks of a chunked body (framed in main). */
static const char started_payload[] =
    "id: 2\nevent: coordinator.started\ndata: {\"seq\":2,\"version\":2,\"type\":"
    "\"coordinator.started\",\"coordinator\":\"c2\",\"route\":\"detail\",\"params\":{\"id\":1}}\n\n";
static const char stopped_payload[] =
    "id: 3\nevent: coordinator.stopped\ndata: {\"seq\":3,\"version\":3,\"type\":"
    "\"coordinator.stopped\",\"coordinator\":\"c2\",\"route\":\"detail\",\"reason\":\"popped\"}\n\n";
static char started_event[512], stopped_event[512];
static size_t started_length, stopped_length;

static void *sender(void *unused) {
  (void)unused;
  for (;;) {
    pthread_mutex_lock(&lock);
    while (job_head == job_tail) pthread_cond_wait(&ready, &lock);
    struct job job = jobs[job_head++ % job_capacity];
    int *streams = sessions[job.session].streams;
    pthread_mutex_unlock(&lock);
    for (int index = job.start; index < job.end; index++)
      send(streams[index], job.event, job.length, MSG_DONTWAIT | MSG_NOSIGNAL);
  }
  return NULL;
}

/* Queues one event for every stream of `session` (the stream list only grows, and only on the
 * request thread, which is this one). */
static void publish(int session, const char *event, size_t length) {
  pthread_mutex_lock(&lock);
  int count = sessions[session].count;
  for (int start = 0; start < count; start += JOB_SIZE) {
    if (job_tail - job_head == job_capacity) break; /* full: never at the sizes measured */
    struct job job = {session, start, start + JOB_SIZE < count ? start + JOB_SIZE : count, event,
                      length};
    jobs[job_tail++ % job_capacity] = job;
  }
  pthread_cond_broadcast(&ready);
  pthread_mutex_unlock(&lock);
}

static void answer(int fd, int status, const char *body) {
  char text[512];
  int length = snprintf(text, sizeof text, "HTTP/1.1 %d X\r\nContent-Length: %zu\r\n\r\n%s",
                        status, strlen(body), body);
  send(fd, text, (size_t)length, MSG_NOSIGNAL);
}

struct connection {
  char buffer[8192];
  size_t have;
};
static struct connection *connections[65536];

/* Handles every whole request in the connection's buffer; false once the socket became a
 * stream (it leaves the epoll set). */
static int handle(int fd, int epoll_fd) {
  struct connection *connection = connections[fd];
  char *end;
  while ((end = memmem(connection->buffer, connection->have, "\r\n\r\n", 4))) {
    char *request = connection->buffer;
    size_t head = (size_t)(end + 4 - request);
    size_t body = 0;
    char *field = memmem(request, head, "Content-Length: ", 16); /* as fanout.c writes it */
    if (field) body = strtoul(field + 16, NULL, 10);
    if (connection->have < head + body) return 1;
    /* The request line alone: "METHOD /v1/sessions/sN/OPERATION HTTP/1.1". */
    char line[256];
    size_t line_length = (size_t)((char *)memmem(request, head, "\r\n", 2) - request);
    if (line_length >= sizeof line) line_length = sizeof line - 1;
    memcpy(line, request, line_length);
    line[line_length] = 0;
    int session = 0;
    char *path = strstr(line, "/v1/sessions/s");
    if (path) session = atoi(path + 14);
    if (strncmp(line, "POST /v1/sessions ", 18) == 0) {
      char json[128];
      if (session_count == MAX_SESSIONS) {
        answer(fd, 503, "{}");
      } else {
        snprintf(json, sizeof json, "{\"session\":{\"id\":\"s%d\"},\"token\":\"t\"}",
                 session_count++);
        answer(fd, 201, json);
      }
    } else if (strncmp(line, "GET ", 4) == 0 && session < session_count) {
      static const char reply[] =
          "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
          "1d\r\nretry: 2000\nevent: reset\ndata: {}\n\n\r\n";
      epoll_ctl(epoll_fd, EPOLL_CTL_DEL, fd, NULL);
      send(fd, reply, sizeof reply - 1, MSG_NOSIGNAL);
      pthread_mutex_lock(&lock);
      struct session *owner = &sessions[session];
      if (owner->count == owner->capacity) {
        /* A larger copy; the old one is left allocated, as a sender may still be reading it. */
        owner->capacity = owner->capacity ? owner->capacity * 2 : 16;
        int *larger = malloc((size_t)owner->capacity * sizeof(int));
        if (owner->count) memcpy(larger, owner->streams, (size_t)owner->count * sizeof(int));
        owner->streams = larger;
      }
      owner->streams[owner->count++] = fd;
      pthread_mutex_unlock(&lock);
      free(connection);
      connections[fd] = NULL;
      return 0;
    } else if (strstr(line, "/push ") && session < session_count) {
      publish(session, started_event, started_length);
      answer(fd, 200, "{}");
    } else if (strstr(line, "/pop ") && session < session_count) {
      publish(session, stopped_event, stopped_length);
      answer(fd, 200, "{}");
    } else {
      answer(fd, 404, "{}");
    }
    connection->have -= head + body;
    memmove(connection->buffer, connection->buffer + head + body, connection->have);
  }
  return 1;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: streams PORT THREADS\n");
    return 2;
  }
  int port = atoi(argv[1]), threads = atoi(argv[2]);
  started_length = (size_t)snprintf(started_event, sizeof started_event, "%zx\r\n%s\r\n",
                                    sizeof started_payload - 1, started_payload);
  stopped_length = (size_t)snprintf(stopped_event, sizeof stopped_event, "%zx\r\n%s\r\n",
                                    sizeof stopped_payload - 1, stopped_payload);
  job_capacity = 1 << 16;
  jobs = calloc((size_t)job_capacity, sizeof *jobs);
  for (int index = 0; index < threads; index++) {
    pthread_t thread;
    pthread_create(&thread, NULL, sender, NULL);
  }
  int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), on = 1;
  setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons(port)};
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(listener, (struct sockaddr *)&address, sizeof address) != 0 ||
      listen(listener, 4096) != 0) {
    perror("listen");
    return 1;
  }
  socklen_t length = sizeof address;
  getsockname(listener, (struct sockaddr *)&address, &length);
  int epoll_fd = epoll_create1(EPOLL_CLOEXEC);
  struct epoll_event event = {.events = EPOLLIN, .data.fd = listener};
  epoll_ctl(epoll_fd, EPOLL_CTL_ADD, listener, &event);
  printf("listening on http://127.0.0.1:%d\n", ntohs(address.sin_port));
  fflush(stdout);
  struct epoll_event events[256];
  for (;;) {
    int count = epoll_wait(epoll_fd, events, 256, -1);
    for (int index = 0; index < count; index++) {
      int fd = events[index].data.fd;
      if (fd == listener) {
        int client = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
        if (client < 0 || client >= 65536) {
          if (client >= 0) close(client);
          continue;
        }
        setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
        connections[client] = calloc(1, sizeof(struct connection));
        struct epoll_event watch = {.events = EPOLLIN, .data.fd = client};
        epoll_ctl(epoll_fd, EPOLL_CTL_ADD, client, &watch);
        continue;
      }
      struct connection *connection = connections[fd];
      ssize_t got = recv(fd, connection->buffer + connection->have,
                         sizeof connection->buffer - connection->have, 0);
      if (got <= 0) {
        epoll_ctl(epoll_fd, EPOLL_CTL_DEL, fd, NULL);
        close(fd);
        free(connection);
        connections[fd] = NULL;
        continue;
      }
      connection->have += (size_t)got;
      handle(fd, epoll_fd);
    }
  }
}
