// What one small WebSocket-sized message costs this machine's kernel over loopback TCP, apart from any server:
// the floor under `logistics-bench tracking`, where every fix is three such messages (the rider's fix, its ack,
// and on average half a customer's update) between processes that sleep between them.
//
//   cc -O2 -o /tmp/message_cost Benchmarks/loopback/message_cost.c && /tmp/message_cost 20000 1000
//
// Sends COUNT messages of 100 bytes from one process to another on 127.0.0.1 (TCP_NODELAY), GAP microseconds
// apart, and prints the CPU each side spent a message. The reader waits in epoll_wait as an event loop does. The
// writer's sleep between messages is measured on its own (the same loop without the write) and taken off.
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double cpu_seconds(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 + usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
}

static void pause_for(int microseconds) {
    if (microseconds == 0) return;
    struct timespec pause = {0, microseconds * 1000L};
    nanosleep(&pause, NULL);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s COUNT GAP_MICROSECONDS\n", argv[0]);
        return 2;
    }
    int count = atoi(argv[1]), gap = atoi(argv[2]);
    int listener = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t length = sizeof address;
    if (bind(listener, (void *)&address, length) || getsockname(listener, (void *)&address, &length) ||
        listen(listener, 1)) {
        perror("listen");
        return 1;
    }
    int writer = socket(AF_INET, SOCK_STREAM, 0);
    if (connect(writer, (void *)&address, sizeof address)) {
        perror("connect");
        return 1;
    }
    int reader = accept(listener, NULL, NULL), yes = 1;
    setsockopt(writer, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
    int report[2];
    if (pipe(report)) return 1;
    pid_t child = fork();
    if (child == 0) {
        int poll = epoll_create1(0);
        struct epoll_event event = {.events = EPOLLIN, .data.fd = reader};
        epoll_ctl(poll, EPOLL_CTL_ADD, reader, &event);
        char bytes[4096];
        long received = 0;
        while (received < 100L * count) {
            epoll_wait(poll, &event, 1, -1);
            long got = read(reader, bytes, sizeof bytes);
            if (got <= 0) break;
            received += got;
        }
        double spent = cpu_seconds();
        if (write(report[1], &spent, sizeof spent) != sizeof spent) _exit(1);
        _exit(0);
    }
    char message[100];
    memset(message, 'x', sizeof message);
    double start = cpu_seconds();
    for (int i = 0; i < count; i++) {
        if (write(writer, message, sizeof message) != sizeof message) return 1;
        pause_for(gap);
    }
    double sending = cpu_seconds() - start;
    start = cpu_seconds();
    for (int i = 0; i < count; i++) pause_for(gap);
    double pausing = cpu_seconds() - start;
    double reading = 0;
    if (read(report[0], &reading, sizeof reading) != sizeof reading) return 1;
    waitpid(child, NULL, 0);
    double written = (sending - pausing) * 1e6 / count, read_ = reading * 1e6 / count;
    printf("%d messages of 100 bytes, %d us apart: writer %.1f us, reader %.1f us, both %.1f us of CPU a message\n",
           count, gap, written, read_, written + read_);
    return 0;
}
