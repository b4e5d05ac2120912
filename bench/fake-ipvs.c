/*
 * LD_PRELOAD shim for bench/check-vs-keepalived.sh NETNS=1: lets keepalived's checker run on a
 * kernel without ip_vs (this machine's host), so its health checks can be measured in a host
 * network namespace, outside user-mode Linux.
 *
 * keepalived's libipvs falls back from generic netlink (no "IPVS" family here) to the old
 * [gs]etsockopt interface on a raw socket (IPPROTO_IP, IP_VS_SO_*). This answers those options
 * itself: every SET succeeds, every GET returns zeros (no services, no destinations), and each
 * destination change is appended to $FAKE_IPVS_LOG as "EPOCH_SECONDS OP ADDRESS:PORT WEIGHT"
 * (OP = add, edit, del), which is when keepalived applied a verdict. Every other option passes
 * through unchanged. Nothing reaches a kernel table: only the checks are real.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dlfcn.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#define IP_VS_BASE_CTL (64 + 1024 + 64)
#define IP_VS_SO_SET_ADDDEST (IP_VS_BASE_CTL + 7)
#define IP_VS_SO_SET_DELDEST (IP_VS_BASE_CTL + 8)
#define IP_VS_SO_SET_EDITDEST (IP_VS_BASE_CTL + 9)
#define IP_VS_SO_SET_MAX (IP_VS_BASE_CTL + 15)
#define IP_VS_SO_GET_MAX (IP_VS_BASE_CTL + 7)

/* The kernel's struct ip_vs_service_user followed by struct ip_vs_dest_user (linux/ip_vs.h). */
struct service_user {
  uint16_t protocol;
  uint32_t addr;
  uint16_t port;
  uint32_t fwmark;
  char sched_name[16];
  unsigned int flags;
  unsigned int timeout;
  uint32_t netmask;
};
struct dest_user {
  uint32_t addr;
  uint16_t port;
  unsigned int conn_flags;
  int weight;
  uint32_t u_threshold;
  uint32_t l_threshold;
};

static FILE *events(void) {
  static FILE *f;
  if (!f) {
    const char *p = getenv("FAKE_IPVS_LOG");
    if (p) {
      f = fopen(p, "a");
      if (f) {
        setvbuf(f, NULL, _IOLBF, 0);
      }
    }
  }
  return f;
}

int setsockopt(int fd, int level, int name, const void *val, socklen_t len) {
  static int (*real)(int, int, int, const void *, socklen_t);
  if (level == IPPROTO_IP && name >= IP_VS_BASE_CTL && name <= IP_VS_SO_SET_MAX) {
    if ((name == IP_VS_SO_SET_ADDDEST || name == IP_VS_SO_SET_DELDEST
         || name == IP_VS_SO_SET_EDITDEST)
        && len >= sizeof(struct service_user) + sizeof(struct dest_user) && events()) {
      const struct dest_user *d =
          (const struct dest_user *)((const char *)val + sizeof(struct service_user));
      struct timespec now;
      char ip[INET_ADDRSTRLEN];
      clock_gettime(CLOCK_REALTIME, &now);
      inet_ntop(AF_INET, &d->addr, ip, sizeof ip);
      fprintf(events(), "%ld.%09ld %s %s:%u %d\n", (long)now.tv_sec, now.tv_nsec,
              name == IP_VS_SO_SET_ADDDEST ? "add" : name == IP_VS_SO_SET_DELDEST ? "del" : "edit",
              ip, ntohs(d->port), d->weight);
    }
    return 0;
  }
  if (!real) {
    real = (int (*)(int, int, int, const void *, socklen_t))dlsym(RTLD_NEXT, "setsockopt");
  }
  return real(fd, level, name, val, len);
}

int getsockopt(int fd, int level, int name, void *val, socklen_t *len) {
  static int (*real)(int, int, int, void *, socklen_t *);
  if (level == IPPROTO_IP && name >= IP_VS_BASE_CTL && name <= IP_VS_SO_GET_MAX) {
    memset(val, 0, *len);
    return 0;
  }
  if (!real) {
    real = (int (*)(int, int, int, void *, socklen_t *))dlsym(RTLD_NEXT, "getsockopt");
  }
  return real(fd, level, name, val, len);
}
