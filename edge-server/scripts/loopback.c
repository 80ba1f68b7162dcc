/*
 * Loopback ceiling for `make bench`: a raw TCP copy between two processes on this box, no HTTP.
 *   loopback serve PORT FILE THREADS      epoll loops; every connection gets FILE by sendfile(2), over and over
 *   loopback pull PORT CONNS SECS THREADS epoll loops that read and discard; prints bytes/second
 * Built like the servers and wrk are (non-blocking sockets, one epoll loop per thread, 4 MiB send
 * buffers), so it is the best an HTTP server could reach here for large objects.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_CONNS 65536
static int port, file_fd;
static off_t file_size;
static off_t offsets[MAX_CONNS];
static atomic_long total;
static volatile int stop;
static int epolls[64];
static int nthreads;

static void* send_loop(void* arg) {
    int ep = (int)(long)arg;
    struct epoll_event ev[256];
    for (;;) {
        int n = epoll_wait(ep, ev, 256, -1);
        for (int i = 0; i < n; i++) {
            int s = ev[i].data.fd;
            for (;;) {
                off_t off = offsets[s];
                ssize_t w = sendfile(s, file_fd, &off, file_size - offsets[s]);
                if (w > 0) {
                    offsets[s] = off >= file_size ? 0 : off;
                } else {
                    if (w < 0 && errno == EAGAIN) break;
                    epoll_ctl(ep, EPOLL_CTL_DEL, s, NULL);
                    close(s);
                    break;
                }
            }
        }
    }
    return NULL;
}

static int serve(const char* path) {
    struct stat st;
    file_fd = open(path, O_RDONLY);
    if (file_fd < 0 || fstat(file_fd, &st) != 0) { perror(path); return 1; }
    file_size = st.st_size;
    int l = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (bind(l, (struct sockaddr*)&a, sizeof(a)) || listen(l, 4096)) { perror("bind/listen"); return 1; }
    signal(SIGPIPE, SIG_IGN);
    for (int t = 0; t < nthreads; t++) {
        pthread_t th;
        epolls[t] = epoll_create1(0);
        pthread_create(&th, NULL, send_loop, (void*)(long)epolls[t]);
    }
    for (int next = 0;; next++) {
        int s = accept4(l, NULL, NULL, SOCK_NONBLOCK);
        if (s < 0 || s >= MAX_CONNS) { if (s >= 0) close(s); continue; }
        int sndbuf = 4 << 20;
        setsockopt(s, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
        offsets[s] = 0;
        struct epoll_event ev = {.events = EPOLLOUT, .data.fd = s};
        epoll_ctl(epolls[next % nthreads], EPOLL_CTL_ADD, s, &ev);
    }
}

static void* recv_loop(void* arg) {
    int ep = (int)(long)arg;
    struct epoll_event ev[256];
    char* buf = malloc(64 << 10);
    while (!stop) {
        int n = epoll_wait(ep, ev, 256, 100);
        for (int i = 0; i < n; i++) {
            for (;;) {
                ssize_t r = recv(ev[i].data.fd, buf, 64 << 10, 0);
                if (r > 0) { atomic_fetch_add(&total, r); continue; }
                if (r < 0 && errno == EAGAIN) break;
                epoll_ctl(ep, EPOLL_CTL_DEL, ev[i].data.fd, NULL);
                break;
            }
        }
    }
    free(buf);
    return NULL;
}

static int pull(int conns, int secs) {
    pthread_t th[64];
    for (int t = 0; t < nthreads; t++) epolls[t] = epoll_create1(0);
    for (int c = 0; c < conns; c++) {
        int s = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        if (connect(s, (struct sockaddr*)&a, sizeof(a))) { perror("connect"); return 1; }
        fcntl(s, F_SETFL, O_NONBLOCK);
        struct epoll_event ev = {.events = EPOLLIN, .data.fd = s};
        epoll_ctl(epolls[c % nthreads], EPOLL_CTL_ADD, s, &ev);
    }
    for (int t = 0; t < nthreads; t++) pthread_create(&th[t], NULL, recv_loop, (void*)(long)epolls[t]);
    sleep(1); /* ramp up, not counted */
    struct timespec t0, t1;
    long start_bytes = atomic_load(&total);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    sleep(secs);
    long bytes = atomic_load(&total) - start_bytes;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    stop = 1;
    for (int t = 0; t < nthreads; t++) pthread_join(th[t], NULL);
    printf("%.0f\n", bytes / ((t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9));
    return 0;
}

int main(int argc, char** argv) {
    if (argc == 5 && strcmp(argv[1], "serve") == 0) {
        port = atoi(argv[2]);
        nthreads = atoi(argv[4]);
        return serve(argv[3]);
    }
    if (argc == 6 && strcmp(argv[1], "pull") == 0) {
        port = atoi(argv[2]);
        nthreads = atoi(argv[5]);
        return pull(atoi(argv[3]), atoi(argv[4]));
    }
    fprintf(stderr, "usage: loopback serve PORT FILE THREADS | loopback pull PORT CONNS SECS THREADS\n");
    return 2;
}
