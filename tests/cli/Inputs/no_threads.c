/* A pthread_create that always fails, as in a process at its thread limit
 * (RLIMIT_NPROC, a cgroup's pids.max), for cli/no_threads.mlir: preloaded,
 * it leaves jitrun only the thread it was started on. */
#include <errno.h>
#include <pthread.h>

int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *),
                   void *arg) {
  (void)thread;
  (void)attr;
  (void)start;
  (void)arg;
  return EAGAIN;
}
