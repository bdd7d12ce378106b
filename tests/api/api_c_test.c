/*===- api_c_test.c - every entry point of <jitrun/jitrun.h>, from C -----===*
 *
 * Compiled as C (not C++) so that the header is proven to be C. Loads small
 * models from text and a zoo model from a file, runs them with caller-owned,
 * runtime-owned and session buffers, and walks every error path: null
 * handles, wrong counts, shapes, types and sizes, bad options, a missing
 * file, bytes that are not MLIR, a model that fails to compile, a model over
 * the memory limit. Usage: jitrun_api_c_test ZOO_DIR. Exit status 0 only if
 * every check passed.
 *
 *===----------------------------------------------------------------------===*/

#include <jitrun/jitrun.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int passed = 0, failed = 0;

#define CHECK(cond)                                                          \
  do {                                                                       \
    if (cond) {                                                              \
      ++passed;                                                              \
    } else {                                                                 \
      ++failed;                                                              \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                        \
  } while (0)

/* Checks that `status` has `code` and a message containing `text`, frees it. */
#define CHECK_STATUS(status, code, text)                                      \
  do {                                                                        \
    jitrun_status_t s_ = (status);                                            \
    CHECK(jitrun_status_code(s_) == (code));                                  \
    CHECK(strstr(jitrun_status_message(s_), (text)) != NULL);                 \
    if (jitrun_status_code(s_) != (code) ||                                   \
        !strstr(jitrun_status_message(s_), (text)))                           \
      fprintf(stderr, "  status %d: %s\n", (int)jitrun_status_code(s_),       \
              jitrun_status_message(s_));                                     \
    jitrun_status_free(s_);                                                   \
  } while (0)

#define CHECK_OK(status) CHECK_STATUS(status, JITRUN_OK, "")

/* Two public functions: C = A + B (4x8) and D = A x W (4x8 . 8x3). */
static const char *kTwoFunctions =
    "func.func @add(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {\n"
    "  %e = tensor.empty() : tensor<4x8xf32>\n"
    "  %r = linalg.add ins(%a, %b : tensor<4x8xf32>, tensor<4x8xf32>)\n"
    "                  outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>\n"
    "  return %r : tensor<4x8xf32>\n"
    "}\n"
    "func.func @matmul(%a: tensor<4x8xf32>, %w: tensor<8x3xf32>) -> tensor<4x3xf32> {\n"
    "  %z = arith.constant 0.0 : f32\n"
    "  %e = tensor.empty() : tensor<4x3xf32>\n"
    "  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x3xf32>) -> tensor<4x3xf32>\n"
    "  %r = linalg.matmul ins(%a, %w : tensor<4x8xf32>, tensor<8x3xf32>)\n"
    "                     outs(%f : tensor<4x3xf32>) -> tensor<4x3xf32>\n"
    "  return %r : tensor<4x3xf32>\n"
    "}\n";

/* A dynamic shape: jitrun runs static shapes only, so this fails to compile. */
static const char *kDynamic =
    "func.func @main(%a: tensor<?xf32>) -> tensor<?xf32> {\n"
    "  return %a : tensor<?xf32>\n"
    "}\n";

static jitrun_tensor_t tensorOf(jitrun_element_type_t type, size_t rank, const int64_t *shape,
                                void *data) {
  jitrun_tensor_t t;
  size_t bytes = jitrun_element_size(type);
  size_t i;
  for (i = 0; i < rank; ++i)
    bytes *= (size_t)shape[i];
  t.type = type;
  t.rank = rank;
  t.shape = shape;
  t.data = data;
  t.byte_size = bytes;
  return t;
}

static void testStatusAndTypes(void) {
  CHECK(jitrun_status_code(NULL) == JITRUN_OK);
  CHECK(strcmp(jitrun_status_message(NULL), "") == 0);
  jitrun_status_free(NULL);
  CHECK(jitrun_element_size(JITRUN_F32) == 4);
  CHECK(jitrun_element_size(JITRUN_BF16) == 2);
  CHECK(jitrun_element_size(JITRUN_I1) == 1);
  CHECK(jitrun_element_size(JITRUN_I64) == 8);
  CHECK(jitrun_element_size((jitrun_element_type_t)42) == 0);
  CHECK(strcmp(jitrun_element_type_name(JITRUN_I8), "i8") == 0);
  CHECK(strcmp(jitrun_element_type_name(JITRUN_U8), "ui8") == 0);
  CHECK(strcmp(jitrun_element_type_name((jitrun_element_type_t)-1), "?") == 0);
}

static void testNullHandles(void) {
  jitrun_model_t model = (jitrun_model_t)1;
  jitrun_tensor_desc_t desc;
  jitrun_statistics_t stats;
  jitrun_outputs_t outs = (jitrun_outputs_t)1;
  jitrun_session_t session = (jitrun_session_t)1;
  jitrun_tensor_t t;
  CHECK_STATUS(jitrun_runtime_create(1, NULL), JITRUN_INVALID_ARGUMENT, "null output");
  CHECK_STATUS(jitrun_options_create(NULL), JITRUN_INVALID_ARGUMENT, "null output");
  CHECK_STATUS(jitrun_options_set_fusion(NULL, "none"), JITRUN_INVALID_ARGUMENT, "null options");
  CHECK_STATUS(jitrun_options_set_function(NULL, "f"), JITRUN_INVALID_ARGUMENT, "null options");
  CHECK_STATUS(jitrun_options_set_stack_limit(NULL, 1, 1), JITRUN_INVALID_ARGUMENT, "null");
  CHECK_STATUS(jitrun_options_set_cache_dir(NULL, "d"), JITRUN_INVALID_ARGUMENT, "null");
  CHECK_STATUS(jitrun_options_set_memory_limit(NULL, 1), JITRUN_INVALID_ARGUMENT, "null");
  CHECK_STATUS(jitrun_options_set_compile_threads(NULL, 1), JITRUN_INVALID_ARGUMENT, "null");
  CHECK_STATUS(jitrun_options_set_force_avx2(NULL, 1), JITRUN_INVALID_ARGUMENT, "null");
  CHECK_STATUS(jitrun_model_load_file(NULL, "x.mlir", NULL, &model), JITRUN_INVALID_ARGUMENT,
               "null runtime");
  CHECK(model == NULL);
  CHECK_STATUS(jitrun_model_load_file(NULL, NULL, NULL, &model), JITRUN_INVALID_ARGUMENT,
               "null path");
  CHECK_STATUS(jitrun_model_load_buffer(NULL, NULL, 5, NULL, NULL, &model),
               JITRUN_INVALID_ARGUMENT, "null data");
  CHECK_STATUS(jitrun_model_input(NULL, 0, &desc), JITRUN_INVALID_ARGUMENT, "null model");
  CHECK_STATUS(jitrun_model_output(NULL, 0, &desc), JITRUN_INVALID_ARGUMENT, "null model");
  CHECK_STATUS(jitrun_model_statistics(NULL, &stats), JITRUN_INVALID_ARGUMENT, "null model");
  CHECK_STATUS(jitrun_model_run(NULL, NULL, 0, NULL, 0), JITRUN_INVALID_ARGUMENT, "null model");
  CHECK_STATUS(jitrun_model_run_alloc(NULL, NULL, 0, &outs), JITRUN_INVALID_ARGUMENT,
               "null model");
  CHECK(outs == NULL);
  CHECK_STATUS(jitrun_session_create(NULL, &session), JITRUN_INVALID_ARGUMENT, "null model");
  CHECK(session == NULL);
  CHECK_STATUS(jitrun_session_run(NULL, NULL, 0, NULL, 0), JITRUN_INVALID_ARGUMENT,
               "null session");
  CHECK_STATUS(jitrun_outputs_get(NULL, 0, &t), JITRUN_INVALID_ARGUMENT, "null outputs");
  CHECK(jitrun_model_num_inputs(NULL) == 0);
  CHECK(jitrun_model_num_outputs(NULL) == 0);
  CHECK(jitrun_model_num_entry_points(NULL) == 0);
  CHECK(jitrun_model_entry_point(NULL, 0) == NULL);
  CHECK(strcmp(jitrun_model_function(NULL), "") == 0);
  CHECK(jitrun_outputs_count(NULL) == 0);
  CHECK(jitrun_runtime_threads(NULL) == 0);
  jitrun_runtime_release(NULL);
  jitrun_options_free(NULL);
  jitrun_model_release(NULL);
  jitrun_session_release(NULL);
  jitrun_outputs_free(NULL);
}

static void testTwoFunctions(jitrun_runtime_t runtime) {
  jitrun_options_t options = NULL;
  jitrun_model_t add = NULL, matmul = NULL;
  jitrun_tensor_desc_t desc;
  jitrun_statistics_t stats;
  float a[32], b[32], c[32], w[24], d[12];
  int64_t shape48[2] = {4, 8}, shape83[2] = {8, 3}, shape43[2] = {4, 3}, shape84[2] = {8, 4};
  jitrun_tensor_t in[2], out[1], bad[2];
  jitrun_outputs_t results = NULL;
  jitrun_session_t session = NULL;
  jitrun_tensor_t view;
  int i, j, k, ok;

  CHECK_OK(jitrun_options_create(&options));
  CHECK_STATUS(jitrun_options_set_fusion(options, "fastest"), JITRUN_INVALID_ARGUMENT,
               "default, aggressive or none");
  CHECK_STATUS(jitrun_options_set_fusion(options, NULL), JITRUN_INVALID_ARGUMENT, "fusion mode");
  CHECK_OK(jitrun_options_set_fusion(options, "aggressive"));
  CHECK_OK(jitrun_options_set_stack_limit(options, 65536, 1));
  CHECK_OK(jitrun_options_set_compile_threads(options, 1));
  CHECK_OK(jitrun_options_set_cache_dir(options, NULL));
  CHECK_OK(jitrun_options_set_memory_limit(options, 0));
  CHECK_OK(jitrun_options_set_force_avx2(options, 0));

  /* Two public functions and no @main: the function must be named. */
  CHECK_STATUS(jitrun_model_load_buffer(runtime, kTwoFunctions, strlen(kTwoFunctions), "two",
                                        options, &add),
               JITRUN_COMPILE_ERROR, "name the entry function");
  CHECK(add == NULL);
  CHECK_OK(jitrun_options_set_function(options, "nope"));
  CHECK_STATUS(jitrun_model_load_buffer(runtime, kTwoFunctions, strlen(kTwoFunctions), "two",
                                        options, &add),
               JITRUN_COMPILE_ERROR, "no function named 'nope'");
  CHECK_OK(jitrun_options_set_function(options, "add"));
  CHECK_OK(jitrun_model_load_buffer(runtime, kTwoFunctions, strlen(kTwoFunctions), "two",
                                    options, &add));
  CHECK_OK(jitrun_options_set_function(options, "matmul"));
  CHECK_OK(jitrun_model_load_buffer(runtime, kTwoFunctions, strlen(kTwoFunctions), "two",
                                    options, &matmul));
  /* The options were copied at load: freeing them now is fine. */
  jitrun_options_free(options);
  if (!add || !matmul)
    return;

  CHECK(strcmp(jitrun_model_function(add), "add") == 0);
  CHECK(strcmp(jitrun_model_function(matmul), "matmul") == 0);
  CHECK(jitrun_model_num_entry_points(add) == 2);
  CHECK(strcmp(jitrun_model_entry_point(add, 0), "add") == 0);
  CHECK(strcmp(jitrun_model_entry_point(add, 1), "matmul") == 0);
  CHECK(jitrun_model_entry_point(add, 2) == NULL);
  CHECK(jitrun_model_num_inputs(matmul) == 2);
  CHECK(jitrun_model_num_outputs(matmul) == 1);
  CHECK_OK(jitrun_model_input(matmul, 1, &desc));
  CHECK(desc.type == JITRUN_F32 && desc.rank == 2 && desc.shape[0] == 8 && desc.shape[1] == 3);
  CHECK(desc.byte_size == 8 * 3 * 4);
  CHECK_OK(jitrun_model_output(matmul, 0, &desc));
  CHECK(desc.rank == 2 && desc.shape[0] == 4 && desc.shape[1] == 3 && desc.byte_size == 48);
  CHECK_STATUS(jitrun_model_input(matmul, 2, &desc), JITRUN_INVALID_ARGUMENT, "out of range");
  CHECK_STATUS(jitrun_model_output(matmul, 1, &desc), JITRUN_INVALID_ARGUMENT, "out of range");
  CHECK_STATUS(jitrun_model_input(matmul, 0, NULL), JITRUN_INVALID_ARGUMENT, "null");
  CHECK_OK(jitrun_model_statistics(matmul, &stats));
  CHECK(stats.root_ops == 1 && stats.dispatches == 1 && stats.executables == 1);
  CHECK(stats.vector_kernels == 1 && stats.scalar_kernels == 0 && stats.vnni_kernels == 0);
  CHECK(stats.compile_seconds > 0);

  for (i = 0; i < 32; ++i) {
    a[i] = (float)i * 0.5f;
    b[i] = 100.0f - (float)i;
  }
  for (i = 0; i < 24; ++i)
    w[i] = (float)(i % 5) - 2.0f;

  /* add, caller-owned result */
  in[0] = tensorOf(JITRUN_F32, 2, shape48, a);
  in[1] = tensorOf(JITRUN_F32, 2, shape48, b);
  out[0] = tensorOf(JITRUN_F32, 2, shape48, c);
  memset(c, 0, sizeof c);
  CHECK_OK(jitrun_model_run(add, in, 2, out, 1));
  ok = 1;
  for (i = 0; i < 32; ++i)
    ok &= c[i] == a[i] + b[i];
  CHECK(ok);

  /* matmul, runtime-owned result */
  in[1] = tensorOf(JITRUN_F32, 2, shape83, w);
  CHECK_OK(jitrun_model_run_alloc(matmul, in, 2, &results));
  CHECK(jitrun_outputs_count(results) == 1);
  CHECK_OK(jitrun_outputs_get(results, 0, &view));
  CHECK(view.type == JITRUN_F32 && view.rank == 2 && view.shape[0] == 4 && view.shape[1] == 3);
  CHECK(view.byte_size == 48 && view.data != NULL);
  ok = 1;
  for (i = 0; i < 4; ++i)
    for (j = 0; j < 3; ++j) {
      float expect = 0;
      for (k = 0; k < 8; ++k)
        expect += a[i * 8 + k] * w[k * 3 + j];
      ok &= fabsf(((float *)view.data)[i * 3 + j] - expect) <= 1e-4f * (1 + fabsf(expect));
    }
  CHECK(ok);
  CHECK_STATUS(jitrun_outputs_get(results, 1, &view), JITRUN_INVALID_ARGUMENT, "out of range");
  jitrun_outputs_free(results);

  /* matmul in a session: same values as the model-level run */
  CHECK_OK(jitrun_session_create(matmul, &session));
  out[0] = tensorOf(JITRUN_F32, 2, shape43, d);
  for (k = 0; k < 3; ++k) {
    memset(d, 0, sizeof d);
    CHECK_OK(jitrun_session_run(session, in, 2, out, 1));
  }
  CHECK(fabsf(d[0] - (a[0] * w[0] + a[1] * w[3] + a[2] * w[6] + a[3] * w[9] + a[4] * w[12] +
                      a[5] * w[15] + a[6] * w[18] + a[7] * w[21])) < 1e-4f);

  /* Run errors: counts, shapes, types, sizes, null data, null arrays. */
  CHECK_STATUS(jitrun_model_run(matmul, in, 1, out, 1), JITRUN_SHAPE_MISMATCH,
               "expected 2 inputs, got 1");
  CHECK_STATUS(jitrun_model_run(matmul, in, 2, out, 0), JITRUN_SHAPE_MISMATCH,
               "expected 1 result tensors, got 0");
  CHECK_STATUS(jitrun_model_run(matmul, NULL, 2, out, 1), JITRUN_INVALID_ARGUMENT, "null array");
  bad[0] = in[0];
  bad[1] = tensorOf(JITRUN_F32, 2, shape84, w);
  CHECK_STATUS(jitrun_model_run(matmul, bad, 2, out, 1), JITRUN_SHAPE_MISMATCH,
               "input 1: expected shape and type 8x3xf32, got 8x4xf32");
  bad[1] = tensorOf(JITRUN_I32, 2, shape83, w);
  CHECK_STATUS(jitrun_model_run(matmul, bad, 2, out, 1), JITRUN_SHAPE_MISMATCH, "8x3xi32");
  bad[1] = tensorOf(JITRUN_F32, 2, shape83, w);
  bad[1].byte_size = 4;
  CHECK_STATUS(jitrun_model_run(matmul, bad, 2, out, 1), JITRUN_SHAPE_MISMATCH,
               "byte_size is 4");
  bad[1] = tensorOf(JITRUN_F32, 2, shape83, NULL);
  CHECK_STATUS(jitrun_model_run(matmul, bad, 2, out, 1), JITRUN_INVALID_ARGUMENT, "null data");
  bad[1] = tensorOf((jitrun_element_type_t)77, 2, shape83, w);
  CHECK_STATUS(jitrun_model_run(matmul, bad, 2, out, 1), JITRUN_INVALID_ARGUMENT,
               "not a jitrun_element_type_t");
  bad[1] = tensorOf(JITRUN_F32, 2, shape83, w);
  bad[1].shape = NULL;
  CHECK_STATUS(jitrun_model_run(matmul, bad, 2, out, 1), JITRUN_INVALID_ARGUMENT, "null shape");
  bad[0] = tensorOf(JITRUN_F32, 2, shape48, c);
  CHECK_STATUS(jitrun_session_run(session, in, 2, bad, 1), JITRUN_SHAPE_MISMATCH,
               "result 0: expected shape and type 4x3xf32, got 4x8xf32");
  CHECK_STATUS(jitrun_model_run_alloc(matmul, in, 1, &results), JITRUN_SHAPE_MISMATCH,
               "expected 2 inputs");
  CHECK(results == NULL);
  /* A failed run leaves the caller's result untouched by later errors and
   * the session usable. */
  memset(d, 0, sizeof d);
  CHECK_OK(jitrun_session_run(session, in, 2, out, 1));
  CHECK(d[0] != 0);
  jitrun_session_release(session);

  jitrun_model_release(add);
  jitrun_model_release(matmul);
}

/* A model with a dynamic dim: its signature says -1, the output shape query
 * and each run compile it for the shapes given, results come back with
 * their run-time shapes. */
static void testDynamic(jitrun_runtime_t runtime) {
  jitrun_model_t model = NULL;
  jitrun_options_t options = NULL;
  jitrun_tensor_desc_t desc;
  jitrun_outputs_t outs = NULL;
  jitrun_tensor_t in, out;
  int64_t five[1] = {5}, three[1] = {3}, dims[4] = {0, 0, 0, 0};
  float values[3] = {1.5f, -2.0f, 3.25f};
  size_t rank = 0;

  /* "specialize": each new shape compiles before its run (counted below;
   * the default, "tiered", runs size 3 as a padded piece of size 5 while 3
   * compiles in the background). */
  CHECK_OK(jitrun_options_create(&options));
  CHECK_OK(jitrun_options_set_shape_policy(options, "specialize"));
  CHECK_OK(jitrun_model_load_buffer(runtime, kDynamic, strlen(kDynamic), "dyn.mlir", options,
                                    &model));
  jitrun_options_free(options);
  if (!model)
    return;
  CHECK(jitrun_model_is_dynamic(model) == 1);
  CHECK(jitrun_model_num_specializations(model) == 0);
  CHECK_OK(jitrun_model_input(model, 0, &desc));
  CHECK(desc.rank == 1 && desc.shape[0] == -1 && desc.byte_size == 0);
  in = tensorOf(JITRUN_F32, 1, five, NULL);
  CHECK_OK(jitrun_model_output_shape(model, &in, 1, 0, dims, 4, &rank));
  CHECK(rank == 1 && dims[0] == 5);
  CHECK(jitrun_model_num_specializations(model) == 1);
  CHECK_STATUS(jitrun_model_output_shape(model, &in, 1, 0, dims, 0, &rank),
               JITRUN_INVALID_ARGUMENT, "the shape array holds 0");
  CHECK(rank == 1);
  CHECK_STATUS(jitrun_model_output_shape(model, &in, 1, 1, dims, 4, &rank),
               JITRUN_INVALID_ARGUMENT, "output index 1 out of range");
  in = tensorOf(JITRUN_F32, 1, three, values);
  CHECK_OK(jitrun_model_run_alloc(model, &in, 1, &outs));
  if (outs) {
    CHECK_OK(jitrun_outputs_get(outs, 0, &out));
    CHECK(out.rank == 1 && out.shape[0] == 3 && out.byte_size == 12);
    CHECK(memcmp(out.data, values, sizeof values) == 0);
    jitrun_outputs_free(outs);
  }
  CHECK(jitrun_model_num_specializations(model) == 2);
  jitrun_model_release(model);
}

static void testLoadErrors(jitrun_runtime_t runtime, const char *zooDir) {
  jitrun_model_t model = NULL;
  jitrun_options_t options = NULL;
  char path[4096];
  static const unsigned char garbage[] = {0x4d, 0x4c, 0xef, 0x52, 0x00, 0x01, 0xff, 0x13};
  jitrun_statistics_t stats;
  jitrun_tensor_desc_t desc;

  CHECK_STATUS(jitrun_model_load_file(runtime, "/nonexistent/model.mlirbc", NULL, &model),
               JITRUN_NOT_FOUND, "cannot open model '/nonexistent/model.mlirbc'");
  CHECK(model == NULL);
  CHECK_STATUS(jitrun_model_load_buffer(runtime, garbage, sizeof garbage, "garbage.mlirbc",
                                        NULL, &model),
               JITRUN_COMPILE_ERROR, "garbage.mlirbc");
  CHECK_STATUS(jitrun_model_load_buffer(runtime, "", 0, "empty", NULL, &model),
               JITRUN_COMPILE_ERROR, "is empty");
  testDynamic(runtime);

  /* A zoo model from a file, then the same model under a memory limit that
   * its constants alone exceed. */
  snprintf(path, sizeof path, "%s/mnist.mlirbc", zooDir);
  CHECK_OK(jitrun_model_load_file(runtime, path, NULL, &model));
  if (!model)
    return;
  CHECK_OK(jitrun_model_statistics(model, &stats));
  CHECK(stats.transient_bytes > 0 && stats.transient_bytes < stats.intermediate_bytes);
  CHECK_OK(jitrun_model_input(model, 0, &desc));
  CHECK(desc.rank == 4 && desc.shape[2] == 28 && desc.shape[3] == 28);
  jitrun_model_release(model);
  model = NULL;
  CHECK_OK(jitrun_options_create(&options));
  CHECK_OK(jitrun_options_set_memory_limit(options, 4096));
  CHECK_STATUS(jitrun_model_load_file(runtime, path, options, &model),
               JITRUN_RESOURCE_EXHAUSTED, "over the memory limit of 4096 bytes");
  CHECK(model == NULL);
  jitrun_options_free(options);
}

int main(int argc, char **argv) {
  jitrun_runtime_t runtime = NULL;
  if (argc != 2) {
    fprintf(stderr, "usage: %s ZOO_DIR\n", argv[0]);
    return 2;
  }
  testStatusAndTypes();
  testNullHandles();
  CHECK_OK(jitrun_runtime_create(2, &runtime));
  CHECK(jitrun_runtime_threads(runtime) == 2);
  if (runtime) {
    testTwoFunctions(runtime);
    testLoadErrors(runtime, argv[1]);
    jitrun_runtime_release(runtime);
  }
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
