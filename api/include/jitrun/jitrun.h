/*===- jitrun/jitrun.h - the embedded inference API (C) ------------------===*
 *
 * Load a model once, run it many times, from as many threads as you like.
 * Every call returns a status (NULL means success) whose message says what
 * went wrong; nothing here aborts, exits or prints. Handles are opaque and
 * freed by their own _release or _free call, in any order: a model keeps
 * its runtime's workers alive and a session its model. Releasing NULL is a
 * no-op.
 *
 *   jitrun_runtime_t   the worker threads; shared by every model loaded on it
 *   jitrun_options_t   how to compile: fusion mode, stack and memory limits...
 *   jitrun_model_t     a compiled model: kernels and host program, read-only
 *                      after load, safe to run from several threads at once
 *   jitrun_session_t   one caller's run state (its intermediates arena);
 *                      one thread at a time per session
 *   jitrun_outputs_t   results held by the runtime (jitrun_model_run_alloc)
 *
 *===----------------------------------------------------------------------===*/

#ifndef JITRUN_JITRUN_H
#define JITRUN_JITRUN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define JITRUN_API __attribute__((visibility("default")))
#else
#define JITRUN_API
#endif

/** The library's version, "MAJOR.MINOR.PATCH" (the one loaded at run time). */
JITRUN_API const char *jitrun_version(void);

/*===----------------------------------------------------------------------===*
 * Status
 *===----------------------------------------------------------------------===*/

/** What kind of failure a status reports. */
typedef enum jitrun_status_code_e {
  JITRUN_OK = 0,
  /** A null handle, a bad option value, an index out of range. */
  JITRUN_INVALID_ARGUMENT = 1,
  /** A file that cannot be read. */
  JITRUN_NOT_FOUND = 2,
  /** The model does not parse, verify or compile (the message has MLIR's
   *  file:line:col diagnostics). */
  JITRUN_COMPILE_ERROR = 3,
  /** Inputs or outputs of the wrong count, shape, type or size. */
  JITRUN_SHAPE_MISMATCH = 4,
  /** The model needs more memory than the configured limit allows, or an
   *  allocation failed. */
  JITRUN_RESOURCE_EXHAUSTED = 5,
  /** A failure while running (a worker reported an error). */
  JITRUN_RUNTIME_ERROR = 6,
} jitrun_status_code_t;

/** NULL on success; otherwise owned by the caller and freed with
 *  jitrun_status_free. */
typedef struct jitrun_status_s *jitrun_status_t;

/** The code of `status` (JITRUN_OK for NULL). */
JITRUN_API jitrun_status_code_t jitrun_status_code(jitrun_status_t status);
/** The readable message of `status` ("" for NULL); valid until freed. */
JITRUN_API const char *jitrun_status_message(jitrun_status_t status);
/** Frees `status`; NULL is a no-op. */
JITRUN_API void jitrun_status_free(jitrun_status_t status);

/*===----------------------------------------------------------------------===*
 * Tensors
 *===----------------------------------------------------------------------===*/

/** Element types (i1 is stored as one byte per element). */
typedef enum jitrun_element_type_e {
  JITRUN_F32 = 0,
  JITRUN_F64 = 1,
  JITRUN_F16 = 2,
  JITRUN_BF16 = 3,
  JITRUN_I1 = 4,
  JITRUN_I8 = 5,
  JITRUN_I16 = 6,
  JITRUN_I32 = 7,
  JITRUN_I64 = 8,
  JITRUN_U8 = 9,
} jitrun_element_type_t;

/** Bytes of one element of `type`; 0 for a value outside the enum. */
JITRUN_API size_t jitrun_element_size(jitrun_element_type_t type);
/** MLIR's spelling ("f32", "i8", ...); "?" for a value outside the enum. */
JITRUN_API const char *jitrun_element_type_name(jitrun_element_type_t type);

/** A dense row-major tensor that the caller describes: `data` holds
 *  product(shape) * element size bytes (`byte_size`), outermost dim first.
 *  Nothing is copied: inputs are read and outputs written in place. */
typedef struct jitrun_tensor_s {
  jitrun_element_type_t type;
  size_t rank;
  const int64_t *shape;
  void *data;
  size_t byte_size;
} jitrun_tensor_t;

/** The type of an input or output: `shape` points into the model and stays
 *  valid while the model lives. */
typedef struct jitrun_tensor_desc_s {
  jitrun_element_type_t type;
  size_t rank;
  const int64_t *shape;
  /** product(shape) * element size. */
  size_t byte_size;
  /** The model's name for the tensor (an ONNX input or output name, or the
   *  `jitrun.name` attribute of an MLIR argument or result); "" if it has
   *  none. Valid while the model lives. */
  const char *name;
} jitrun_tensor_desc_t;

/*===----------------------------------------------------------------------===*
 * Runtime (worker threads)
 *===----------------------------------------------------------------------===*/

typedef struct jitrun_runtime_s *jitrun_runtime_t;

/** Creates `threads` worker threads, the caller of a run included (0: one per
 *  core, 1: runs on the caller only; more than 1024 is INVALID_ARGUMENT).
 *  Models loaded on one runtime share its workers, so N models never start N
 *  pools. */
JITRUN_API jitrun_status_t jitrun_runtime_create(uint32_t threads,
                                                 jitrun_runtime_t *out);
/** The threads that run a workgroup grid, the caller included. */
JITRUN_API uint32_t jitrun_runtime_threads(jitrun_runtime_t runtime);
/** Drops the caller's handle; the workers are joined once the last model
 *  loaded on the runtime is released too. */
JITRUN_API void jitrun_runtime_release(jitrun_runtime_t runtime);

/*===----------------------------------------------------------------------===*
 * Options
 *===----------------------------------------------------------------------===*/

typedef struct jitrun_options_s *jitrun_options_t;

/** Default options: fusion "default", stack limit 32768 bytes (fail over it),
 *  the default cache folder ($JITRUN_CACHE_DIR if set, "" meaning none; else
 *  $XDG_CACHE_HOME/jitrun; else $HOME/.cache/jitrun) capped at 1 GiB, no
 *  memory limit, the only public function (else @main). */
JITRUN_API jitrun_status_t jitrun_options_create(jitrun_options_t *out);
JITRUN_API void jitrun_options_free(jitrun_options_t options);
/** "default", "aggressive" or "none"; anything else is JITRUN_INVALID_ARGUMENT. */
JITRUN_API jitrun_status_t jitrun_options_set_fusion(jitrun_options_t options,
                                                     const char *mode);
/** The entry point to compile; NULL or "" picks the default. */
JITRUN_API jitrun_status_t jitrun_options_set_function(jitrun_options_t options,
                                                       const char *name);
/** Largest static stack allocation of a kernel; `fail` 0 turns going over it
 *  into a warning. */
JITRUN_API jitrun_status_t jitrun_options_set_stack_limit(jitrun_options_t options,
                                                          uint64_t bytes, int fail);
/** The cache folder (compiled kernels and fused programs: a second load of a
 *  model skips import, fusion and codegen); NULL or "" turns it off. */
JITRUN_API jitrun_status_t jitrun_options_set_cache_dir(jitrun_options_t options,
                                                        const char *path);
/** The cache folder's size cap: after a load that added to it, the least
 *  recently used entries are removed until it is under 90 % of this. 0: no
 *  cap. Entries unused for 30 days are removed too. */
JITRUN_API jitrun_status_t jitrun_options_set_cache_max_bytes(jitrun_options_t options,
                                                              uint64_t bytes);
/** The most host memory one model may allocate: its constants, one run's
 *  intermediates and its results. A model over it is rejected at load
 *  (JITRUN_RESOURCE_EXHAUSTED). 0: no limit. */
JITRUN_API jitrun_status_t jitrun_options_set_memory_limit(jitrun_options_t options,
                                                           uint64_t bytes);
/** Threads that compile kernels at load (0: one per core). */
JITRUN_API jitrun_status_t jitrun_options_set_compile_threads(jitrun_options_t options,
                                                              uint32_t threads);
/** Nonzero: generate AVX2 code even on an AVX-512 host. */
/** "f32" (default) or "bf16": f32 matmul weights stored as bf16, their inputs
 *  rounded to bf16, accumulation in f32 (half the weight bytes; AVX512_BF16
 *  dot products where the host has them, which also take the filters of
 *  1x1 convolutions; AMX tiles where it has AMX, which also take those of
 *  convolutions with channels in 32s). */
JITRUN_API jitrun_status_t jitrun_options_set_weights(jitrun_options_t options,
                                                      const char *weights);
JITRUN_API jitrun_status_t jitrun_options_set_force_avx2(jitrun_options_t options,
                                                         int force);
/** Nonzero (default): bf16 matmuls of many rows (bf16 models, or
 *  "bf16" weights) run in AMX tiles where the host has AMX and Linux grants
 *  the process the tile state (asked for at the first compile; the grant
 *  enlarges every thread's signal frames, so a sigaltstack too small for
 *  them is refused from then on); zero: AVX-512 dot products, and the tile
 *  state is never asked for. */
JITRUN_API jitrun_status_t jitrun_options_set_amx(jitrun_options_t options, int use);

/** A static shape for the model input `name` whose dims are symbolic (an ONNX
 *  `batch_size`): `rank` dims at `dims`. Replaces an earlier shape for the
 *  same name; the load fails if the model has no such input. */
JITRUN_API jitrun_status_t jitrun_options_set_input_shape(jitrun_options_t options,
                                                          const char *name, size_t rank,
                                                          const int64_t *dims);
/** A model with dynamic dims (`?` in its arguments, symbolic ONNX dims) is
 *  compiled for each run's shapes and its most recently used `count`
 *  specializations are kept in memory (default 8, at least 1). */
JITRUN_API jitrun_status_t jitrun_options_set_max_specializations(jitrun_options_t options,
                                                                  size_t count);
/** What a run of a dynamic model at shapes not compiled yet waits for:
 *  "specialize": the model is compiled for those shapes first. "tiered"
 *  (the default): along a dim the model computes index by index (the
 *  batch of most models; jitrun checks), the run starts at once as pieces
 *  at sizes already compiled (batch 5 as 4 + 1, the last piece padded when
 *  no size fits) while the new shapes compile in the background; later
 *  runs use them. "split": pieces always, no compile for a new size along
 *  such a dim. "buckets": as "tiered", but only powers of two of such a
 *  dim compile (37 runs as 32 + 4 + 1 once those are compiled): a bounded
 *  set of programs for every batch size. A new size of a dim that cannot
 *  be split (a sequence through attention) runs at once under "tiered"
 *  on kernels generic in that dim (kept in the model's memory and the
 *  cache folder) while its own program compiles. "generic": as "split" along a splittable dim, and a
 *  new size of another runs on the generic kernels for good (its own
 *  program never compiles). Where nothing fitting is compiled yet, every
 *  policy compiles as "specialize" does. */
JITRUN_API jitrun_status_t jitrun_options_set_shape_policy(jitrun_options_t options,
                                                           const char *policy);
/** Told how a load goes: `phase` is "read" (parsing or importing the model),
 *  "fuse", then "compile" with `done` of `total` kernels compiled (called
 *  before the first and after each one). Calls come one at a time, from the
 *  loading thread or the kernel-compiling threads, and must not call back
 *  into jitrun. */
typedef void (*jitrun_progress_fn)(void *user_data, const char *phase, size_t done,
                                   size_t total);
/** Installs `fn` (NULL: none) with `user_data` passed back to it. */
JITRUN_API jitrun_status_t jitrun_options_set_progress(jitrun_options_t options,
                                                       jitrun_progress_fn fn,
                                                       void *user_data);

/*===----------------------------------------------------------------------===*
 * Models
 *===----------------------------------------------------------------------===*/

typedef struct jitrun_model_s *jitrun_model_t;

/** Reads `path` (MLIR text or bytecode), fuses and compiles it for this host.
 *  `options` may be NULL (defaults) and may be freed after the call. */
JITRUN_API jitrun_status_t jitrun_model_load_file(jitrun_runtime_t runtime,
                                                  const char *path,
                                                  jitrun_options_t options,
                                                  jitrun_model_t *out);
/** Like jitrun_model_load_file, from `size` bytes at `data` (copied; free them
 *  after the call); `name` (may be NULL) appears in messages. */
JITRUN_API jitrun_status_t jitrun_model_load_buffer(jitrun_runtime_t runtime,
                                                    const void *data, size_t size,
                                                    const char *name,
                                                    jitrun_options_t options,
                                                    jitrun_model_t *out);
/** Frees the model's kernels and constants. No run may be in flight. */
JITRUN_API void jitrun_model_release(jitrun_model_t model);

/** The compiled entry point's name. */
JITRUN_API const char *jitrun_model_function(jitrun_model_t model);
/** The module's public functions (entry points one may compile with
 *  jitrun_options_set_function), in file order. */
JITRUN_API size_t jitrun_model_num_entry_points(jitrun_model_t model);
/** Entry point `index`'s name; NULL when out of range. */
JITRUN_API const char *jitrun_model_entry_point(jitrun_model_t model, size_t index);
/** Nonzero when some input has a dynamic dim (-1 in its shape, with
 *  byte_size 0): each run binds the dims from its inputs, and the first run
 *  at new shapes compiles the model for them (later runs at those shapes
 *  start at once). jitrun_model_output_shape gives the results' shapes. */
JITRUN_API int jitrun_model_is_dynamic(jitrun_model_t model);
/** The shape of output `index` for inputs of the shapes and types of
 *  `inputs` (their data is not read and may be NULL): `*rank` dims written
 *  to `shape`, which holds `capacity`. For a dynamic model this compiles the
 *  specialization to those shapes if it is new; inputs it does not take are
 *  JITRUN_SHAPE_MISMATCH, dims that must be equal named in the message. */
JITRUN_API jitrun_status_t jitrun_model_output_shape(jitrun_model_t model,
                                                     const jitrun_tensor_t *inputs,
                                                     size_t num_inputs, size_t index,
                                                     int64_t *shape, size_t capacity,
                                                     size_t *rank);
/** A dynamic model's specializations held in memory (0 for a static one). */
JITRUN_API size_t jitrun_model_num_specializations(jitrun_model_t model);
JITRUN_API size_t jitrun_model_num_inputs(jitrun_model_t model);
JITRUN_API size_t jitrun_model_num_outputs(jitrun_model_t model);
JITRUN_API jitrun_status_t jitrun_model_input(jitrun_model_t model, size_t index,
                                              jitrun_tensor_desc_t *out);
JITRUN_API jitrun_status_t jitrun_model_output(jitrun_model_t model, size_t index,
                                               jitrun_tensor_desc_t *out);

/** Compile-time statistics (README.md, "Reading the statistics"). */
typedef struct jitrun_statistics_s {
  int64_t generic_before, generic_after, root_ops, dispatch_regions, dispatches,
      executables, fills, copies, workgroups;
  /** One run's intermediates after buffer planning (the arena of a session). */
  int64_t transient_bytes;
  /** The sum of all intermediates' sizes, as if none shared memory. */
  int64_t intermediate_bytes;
  int64_t stack_bytes_max, vector_kernels, scalar_kernels, cached_kernels;
  double compile_seconds;
  /** Kernels whose i8 x i8 -> i32 contractions use AVX-512 VNNI. */
  int64_t vnni_kernels;
  /** 1 when the fused program came from the cache (import and fusion
   *  skipped), else 0. */
  int64_t cached_program;
  /** Kernels whose bf16 matmuls run in AMX tiles (tdpbf16ps). */
  int64_t amx_kernels;
  /** Kernels generic in one dim, its size passed at run time (dispatches
   *  that differ only in that size share one). */
  int64_t generic_kernels;
  /** Weight bytes read in place from the cache folder's mapped weight files
   *  (on a warm start, and on the compile that wrote them) instead of
   *  copied. */
  int64_t mapped_constant_bytes;
  /** Weight bytes (packed panels, folded constants) a compile of a model
   *  with dynamic dims at a new shape took from an earlier compile of it
   *  instead of building them again. */
  int64_t reused_weight_bytes;
} jitrun_statistics_t;

JITRUN_API jitrun_status_t jitrun_model_statistics(jitrun_model_t model,
                                                   jitrun_statistics_t *out);

/*===----------------------------------------------------------------------===*
 * Profiling
 *===----------------------------------------------------------------------===*/

/** Nonzero: time every command (dispatch, fill, copy) of the runs that
 *  follow, starting from zero; 0: stop timing (no overhead). While enabled,
 *  runs of this model are serialized so that their timings add up. */
JITRUN_API jitrun_status_t jitrun_model_set_profiling(jitrun_model_t model, int enabled);

/** One command of the host program, in run order. */
typedef struct jitrun_profile_entry_s {
  /** The dispatch's name, or "fill:SHAPE" / "copy:SRC->DST". */
  const char *name;
  /** The dispatch's root op (linalg.matmul, ...), or the fill or copy op. */
  const char *op;
  /** "file:line:col" of that op in the model's source; "" if unknown. */
  const char *location;
  /** Mean seconds per profiled run. */
  double seconds;
  /** FLOPs of one run (0 when the command has no root op) and bytes read
   *  plus written. */
  double flops;
  int64_t bytes;
} jitrun_profile_entry_t;

typedef struct jitrun_profile_s *jitrun_profile_t;

/** A snapshot of the timings so far (freed with jitrun_profile_free). */
JITRUN_API jitrun_status_t jitrun_model_profile(jitrun_model_t model, jitrun_profile_t *out);
/** The runs timed; the commands in run order. */
JITRUN_API int64_t jitrun_profile_runs(jitrun_profile_t profile);
JITRUN_API size_t jitrun_profile_count(jitrun_profile_t profile);
/** Entry `index` (its strings valid until jitrun_profile_free). */
JITRUN_API jitrun_status_t jitrun_profile_get(jitrun_profile_t profile, size_t index,
                                              jitrun_profile_entry_t *out);
JITRUN_API void jitrun_profile_free(jitrun_profile_t profile);

/*===----------------------------------------------------------------------===*
 * Running
 *===----------------------------------------------------------------------===*/

/** Runs the model with caller-owned buffers: `inputs` must match the model's
 *  inputs in count, type, shape and byte_size, and so must `outputs`, whose
 *  data the kernels write directly. Thread-safe: concurrent runs each take
 *  their own intermediates; their grids share the runtime's workers. */
JITRUN_API jitrun_status_t jitrun_model_run(jitrun_model_t model,
                                            const jitrun_tensor_t *inputs,
                                            size_t num_inputs,
                                            const jitrun_tensor_t *outputs,
                                            size_t num_outputs);

typedef struct jitrun_outputs_s *jitrun_outputs_t;

/** Runs the model into results the runtime allocates (64-byte aligned). */
JITRUN_API jitrun_status_t jitrun_model_run_alloc(jitrun_model_t model,
                                                  const jitrun_tensor_t *inputs,
                                                  size_t num_inputs,
                                                  jitrun_outputs_t *out);
JITRUN_API size_t jitrun_outputs_count(jitrun_outputs_t outputs);
/** A view of result `index` (valid until jitrun_outputs_free). */
JITRUN_API jitrun_status_t jitrun_outputs_get(jitrun_outputs_t outputs, size_t index,
                                              jitrun_tensor_t *out);
JITRUN_API void jitrun_outputs_free(jitrun_outputs_t outputs);

typedef struct jitrun_session_s *jitrun_session_t;

/** A run state of its own for one caller: its intermediates are allocated
 *  here once, so its runs never allocate. Use one session per thread. */
JITRUN_API jitrun_status_t jitrun_session_create(jitrun_model_t model,
                                                 jitrun_session_t *out);
/** As jitrun_model_run, in the session's own intermediates. */
JITRUN_API jitrun_status_t jitrun_session_run(jitrun_session_t session,
                                              const jitrun_tensor_t *inputs,
                                              size_t num_inputs,
                                              const jitrun_tensor_t *outputs,
                                              size_t num_outputs);
/** Frees the session; its model must still be alive. */
JITRUN_API void jitrun_session_release(jitrun_session_t session);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* JITRUN_JITRUN_H */
