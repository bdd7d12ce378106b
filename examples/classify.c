/*===- classify.c - load a model with the C API, run it, print top 5 -----===*
 *
 * The C twin of classify.cpp: a runtime, a model compiled from a file, an
 * input of the model's shape filled with one value, one run into results
 * the runtime allocates, and the five largest values of the first result.
 * Usage: classify_c MODEL [FILL=0.5] [THREADS=0]
 *
 *===----------------------------------------------------------------------===*/

#include <jitrun/jitrun.h>

#include <stdio.h>
#include <stdlib.h>

/* Prints the status's message and frees it; returns 1 if it was an error. */
static int failed(jitrun_status_t status, const char *what) {
  if (!status)
    return 0;
  fprintf(stderr, "classify_c: %s: %s\n", what, jitrun_status_message(status));
  jitrun_status_free(status);
  return 1;
}

int main(int argc, char **argv) {
  jitrun_runtime_t runtime = NULL;
  jitrun_model_t model = NULL;
  jitrun_outputs_t outputs = NULL;
  jitrun_tensor_desc_t in, out;
  jitrun_tensor_t input, result;
  float *data = NULL, fill;
  unsigned threads;
  size_t n, i, k, top[5];
  int status = 1;
  if (argc < 2) {
    fprintf(stderr, "usage: %s MODEL [FILL=0.5] [THREADS=0]\n", argv[0]);
    return 1;
  }
  fill = argc > 2 ? strtof(argv[2], NULL) : 0.5f;
  threads = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 10) : 0;
  if (failed(jitrun_runtime_create(threads, &runtime), "runtime") ||
      failed(jitrun_model_load_file(runtime, argv[1], NULL, &model), "load"))
    goto done;
  if (jitrun_model_num_inputs(model) != 1 || failed(jitrun_model_input(model, 0, &in), "input") ||
      failed(jitrun_model_output(model, 0, &out), "output") || in.type != JITRUN_F32 ||
      out.type != JITRUN_F32) {
    fprintf(stderr, "classify_c: expects one f32 input and an f32 first result\n");
    goto done;
  }
  n = in.byte_size / sizeof(float);
  data = malloc(in.byte_size ? in.byte_size : 1);
  if (!data)
    goto done;
  for (i = 0; i < n; ++i)
    data[i] = fill;
  input.type = in.type;
  input.rank = in.rank;
  input.shape = in.shape;
  input.data = data;
  input.byte_size = in.byte_size;
  if (failed(jitrun_model_run_alloc(model, &input, 1, &outputs), "run") ||
      failed(jitrun_outputs_get(outputs, 0, &result), "result"))
    goto done;
  {
    const float *scores = (const float *)result.data;
    size_t count = result.byte_size / sizeof(float);
    k = count < 5 ? count : 5;
    /* The k largest, in order (ties: the lower index first). */
    for (i = 0; i < k; ++i) {
      size_t best = count, j, t;
      for (j = 0; j < count; ++j) {
        int taken = 0;
        for (t = 0; t < i; ++t)
          taken |= top[t] == j;
        if (!taken && (best == count || scores[j] > scores[best]))
          best = j;
      }
      top[i] = best;
    }
    printf("model: %s (@%s), jitrun %s, %u threads\ntop %zu:\n", argv[1],
           jitrun_model_function(model), jitrun_version(), jitrun_runtime_threads(runtime), k);
    for (i = 0; i < k; ++i)
      printf("  index %zu: %.6g\n", top[i], scores[top[i]]);
  }
  status = 0;
done:
  jitrun_outputs_free(outputs);
  jitrun_model_release(model);
  jitrun_runtime_release(runtime);
  free(data);
  return status;
}
