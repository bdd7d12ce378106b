/*===- call_overhead.c - the C API's cost per call, for make python-bench -===*
 *
 * Loads MODEL (one f32 input, one f32 output), then times RUNS calls of
 * jitrun_model_run with caller-owned buffers, best of 5 rounds, and prints
 * "c_api_us_per_call X". scripts/python_bench.py times the Python package on
 * the same model beside it. Usage: jitrun-call-overhead MODEL RUNS
 *
 *===----------------------------------------------------------------------===*/

#include <jitrun/jitrun.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
  jitrun_runtime_t rt = NULL;
  jitrun_model_t model = NULL;
  jitrun_tensor_desc_t in, out;
  jitrun_status_t st;
  long runs, r;
  int round;
  double best = 1e300;
  if (argc != 3) {
    fprintf(stderr, "usage: %s MODEL RUNS\n", argv[0]);
    return 1;
  }
  runs = atol(argv[2]);
  st = jitrun_runtime_create(1, &rt);
  if (!st)
    st = jitrun_model_load_file(rt, argv[1], NULL, &model);
  if (!st)
    st = jitrun_model_input(model, 0, &in);
  if (!st)
    st = jitrun_model_output(model, 0, &out);
  if (st) {
    fprintf(stderr, "call_overhead: %s\n", jitrun_status_message(st));
    return 1;
  }
  {
    void *x = calloc(1, in.byte_size + 1), *y = calloc(1, out.byte_size + 1);
    jitrun_tensor_t tx = {in.type, in.rank, in.shape, x, in.byte_size};
    jitrun_tensor_t ty = {out.type, out.rank, out.shape, y, out.byte_size};
    for (round = 0; round < 5; ++round) {
      double start = now();
      for (r = 0; r < runs; ++r) {
        st = jitrun_model_run(model, &tx, 1, &ty, 1);
        if (st) {
          fprintf(stderr, "call_overhead: %s\n", jitrun_status_message(st));
          return 1;
        }
      }
      double us = (now() - start) * 1e6 / (double)runs;
      best = us < best ? us : best;
    }
    free(x);
    free(y);
  }
  printf("c_api_us_per_call %.3f\n", best);
  jitrun_model_release(model);
  jitrun_runtime_release(rt);
  return 0;
}
