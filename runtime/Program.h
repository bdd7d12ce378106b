//===- Program.h - the host program: buffers, commands, a run ---*- C++ -*-===//
//
// What the compiler leaves for the runtime: the buffers of one run (inputs,
// constants, intermediates placed in one arena by the buffer planner,
// results) and the commands over them (kernel dispatches on the worker pool,
// fills, strided copies, host scalars and control flow), with the
// interpreter that runs them. No MLIR: a compiled model runs without it.
//
//===----------------------------------------------------------------------===//

#ifndef JITRUN_RUNTIME_PROGRAM_H
#define JITRUN_RUNTIME_PROGRAM_H

#include "contract/KernelAbi.h"
#include "support/Errors.h"
#include "support/Tensor.h"
#include "support/ThreadPool.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace jitrun {

/// Predicates of host integer and float comparisons (Command::predicate),
/// numbered as MLIR's arith.cmpi and arith.cmpf number theirs (the compiler
/// checks that they agree).
enum class IntPredicate { eq, ne, slt, sle, sgt, sge, ult, ule, ugt, uge };
enum class FloatPredicate {
  AlwaysFalse, OEQ, OGT, OGE, OLT, OLE, ONE, ORD, UEQ, UGT, UGE, ULT, ULE, UNE, UNO, AlwaysTrue
};

/// Where a buffer's memory comes from.
enum class BufferKind { Input, Constant, Intermediate, Output };

struct Buffer {
  BufferKind kind;
  int64_t index = 0;  // input or result number, or offset into the arena
  size_t bytes = 0;
  const void *constant = nullptr;
};

/// A strided box copy between two row-major buffers. An offset whose
/// register (srcOffsetRegs/dstOffsetRegs, when not empty) is >= 0 is read from
/// that scalar register at run time (a slice at a loop's induction variable).
struct CopyCommand {
  int src, dst;
  size_t eltBytes;
  std::vector<int64_t> sizes, srcShape, dstShape, srcOffsets, dstOffsets,
      srcStrides, dstStrides;
  std::vector<int> srcOffsetRegs, dstOffsetRegs;
};

/// Scalar host arithmetic (loop bounds, conditions, slice offsets). Integers
/// are kept sign-extended from their width (i1 as 0/1), floats as double.
enum class ScalarOp {
  AddI, SubI, MulI, DivSI, RemSI, DivUI, RemUI, MaxSI, MinSI, AndI, OrI, XOrI,
  CmpI, Select, ExtSI, ExtUI, TruncI, IndexCast,
  AddF, SubF, MulF, DivF, MaxF, MinF, CmpF, SIToFP, FPToSI, Copy
};

/// Runs one workgroup of a JIT-compiled kernel. UBSan's -fsanitize=function
/// (on in sanitizer builds) checks an indirect call by reading a type hash
/// stored just before the callee; ORC's kernels have none, and when a kernel
/// starts a page that read faults (SEGV in build-asan), so kernels are exempt.
#if defined(__clang__)
__attribute__((no_sanitize("function")))
#endif
inline int64_t callKernel(KernelFn fn, void **argv, int64_t wg) {
  return fn(argv, wg);
}

struct Command {
  enum Kind { Dispatch, Fill, Copy, CopyWhole, Scalar, Extract, For, While, If } kind;
  // Dispatch
  KernelFn fn = nullptr;
  int kernel = -1; // index of the distinct kernel
  int64_t workgroups = 1;
  std::vector<int> bindings;
  // Byte offsets into the bound buffers (empty: all 0): a result written
  // into its box of a larger buffer, with strides compiled into the kernel.
  std::vector<int64_t> bindingOffsets;
  // A generic kernel's dim at this call (kGenericDimAttrName), passed after
  // the buffers; -1: a kernel of static shapes.
  int64_t dim = -1;
  // --profile: the dispatch function or `fill:SHAPE`/`copy:SRC->DST`, the
  // root op, the root's FLOPs and the bytes read plus written per run, and
  // the source position (file:line:col) of the root or op ("" if none).
  std::string name, op, location;
  double flops = 0;
  int64_t bytes = 0;
  // Fill / CopyWhole
  int dst = -1, src = -1;
  std::vector<uint8_t> pattern;
  // Fill: the buffer's shape, and the box that the next command (a pad's
  // slice copy) overwrites, which the fill skips (holeSizes empty: none).
  std::vector<int64_t> shape, holeOffsets, holeSizes;
  // Copy
  CopyCommand copy;
  // Scalar: reg = op(a, b, c) at `width` bits (the result's; the operands'
  // for comparisons and casts), `predicate` of cmpi/cmpf. Extract: reg =
  // buffer src's element at `indices` (an index register >= 0 overrides the
  // constant), of `type`.
  ScalarOp scalar = ScalarOp::Copy;
  int reg = -1, a = -1, b = -1, c = -1;
  unsigned width = 64, operandWidth = 64;
  int predicate = 0;
  ElementType type = ElementType::I64;
  std::vector<int64_t> indices;
  std::vector<int> indexRegs;
  // For: iv = lb; iv < ub; iv += step (registers a, b, c; iv in reg), body
  // in (this, end). While: the before region in (this, beforeEnd), whose last
  // command sets register `reg` (the condition); the after region in
  // [beforeEnd, end). If: register `reg` picks the then region in
  // (this, beforeEnd) or the else region in [beforeEnd, end).
  size_t beforeEnd = 0, end = 0;
};

class HostProgram;

/// The state of one run: the intermediates arena and scratch space, sized
/// for one model. A run uses one context at a time; a context is reused by
/// every run given it, so those runs allocate nothing.
class RunContext {
public:
  ~RunContext();
  RunContext(const RunContext &) = delete;
  RunContext &operator=(const RunContext &) = delete;

private:
  friend class HostProgram;
  RunContext() = default;
  AlignedStorage storage;
  uint8_t *arena = nullptr;
  std::vector<void *> pointers, arguments;
  /// Scalar registers of the host program (loop counters, conditions).
  std::vector<int64_t> ints;
  std::vector<double> floats;
  /// A dispatch's status word (kernels with bounds checks write it).
  std::atomic<int32_t> status{0};
};

class HostProgram {
public:
  std::vector<Buffer> buffers;
  std::vector<Command> commands;
  std::vector<int> outputs;
  std::vector<TensorSpec> inputSpecs, outputSpecs;
  /// Per distinct kernel: the messages of its bounds checks, site 1 first.
  std::vector<std::vector<std::string>> kernelChecks;
  /// One run's intermediates after buffer planning, and their plain sum.
  size_t arenaBytes = 0, intermediateBytes = 0;
  /// Constant data owned by the program (splats expanded, etc.).
  std::vector<AlignedStorage> ownedConstants;
  /// What keeps the other constants alive where they lie: the mapped cache
  /// entry (a warm start), or resource blobs taken over from the compile.
  std::vector<std::shared_ptr<const void>> sharedConstants;
  /// Scalar registers' values at the start of a run (constants; the rest 0).
  std::vector<int64_t> initialInts;
  std::vector<double> initialFloats;

  int addRegister(int64_t i = 0, double f = 0);
  bool singleThreaded = false;

  int addBuffer(Buffer b);

  /// Buffer planning: places the intermediates in one arena by liveness.
  /// A buffer lives from the first command that touches it to the last (the
  /// end of the run for one read by the final result copy); two buffers
  /// whose lives share a command never share bytes, so a kernel never reads
  /// what it writes through another name. Largest first, each at the lowest
  /// 64-byte aligned offset free of the buffers it lives alongside (greedy
  /// by size, as TFLite's arena planner).
  void plan();

  /// A run's state for this program: its intermediates arena, allocated.
  llvm::Expected<std::unique_ptr<RunContext>> createRunContext() const;

  /// Runs with the caller's result tensors, which dispatches that compute a
  /// result write straight into, and `ctx`'s intermediates. With
  /// `commandSeconds`, adds each command's wall time to it. Reads nothing of
  /// the program that a run changes: runs in different contexts may overlap.
  llvm::Error runInto(llvm::ArrayRef<const HostTensor *> inputs,
                      llvm::MutableArrayRef<HostTensor> results, ThreadPool &pool,
                      RunContext &ctx, double *commandSeconds) const;

private:
  /// Copies the box `sizes` at `srcOffsets` of `c`'s source to `dstOffsets`
  /// of its destination (c's own sizes and offsets unless given: a piece of
  /// a split copy, or offsets resolved from registers). Allocation-free for
  /// ranks up to 8, since copies run inside host loops.
  static void stridedCopy(const CopyCommand &c, const uint8_t *src, uint8_t *dst,
                          llvm::ArrayRef<int64_t> sizes = {},
                          llvm::ArrayRef<int64_t> srcOffsets = {},
                          llvm::ArrayRef<int64_t> dstOffsets = {});

  /// Host fills and copies below this size run on the calling thread; above
  /// it they are split over the pool (a padded activation of a first
  /// convolution layer is megabytes, and one thread does not saturate the
  /// memory bandwidth).
  static constexpr size_t kParallelCopyBytes = 256 * 1024;

  /// `stridedCopy` split along its outermost dimension of more than one
  /// element into pieces run on the pool.
  llvm::Error parallelStridedCopy(const CopyCommand &c, const uint8_t *src, uint8_t *dst,
                                  ThreadPool &pool) const;

  /// Fills `n` bytes at `dst` with repetitions of `pattern` (one element;
  /// `zero` when all its bytes are 0: a memset).
  static void fillBytes(uint8_t *dst, size_t n, llvm::ArrayRef<uint8_t> pattern, bool zero);

  static bool isZeroPattern(llvm::ArrayRef<uint8_t> pattern);

  /// Fills the elements of `c`'s buffer outside its hole, the box the next
  /// command copies into (a tensor.pad: only the border is written, once).
  /// Runs of the innermost dimension the hole does not cover whole are
  /// filled whole outside the hole and split around it inside.
  static void fillOutsideHole(const Command &c, uint8_t *dst);

  /// Fills `n` bytes at `dst` with repetitions of `pattern`, split over the
  /// pool when large.
  llvm::Error parallelFill(uint8_t *dst, size_t n, llvm::ArrayRef<uint8_t> pattern,
                           ThreadPool &pool) const;

  /// Integer register value normalized to `width` bits: sign-extended, i1
  /// as 0/1.
  static int64_t normalize(int64_t v, unsigned width);
  static uint64_t unsignedOf(int64_t v, unsigned width);

  /// One scalar command. Integer division has the kernels' semantics
  /// (jitrun-codegen-safe-arith): x / 0 = 0, x % 0 = 0, MIN / -1 = MIN.
  static llvm::Error runScalar(const Command &c, RunContext &ctx);

  /// Element `c.indices` of buffer `c.src` into register `c.reg`.
  llvm::Error runExtract(const Command &c, RunContext &ctx) const;

  /// The error of dispatch `c`'s bounds-check site `site` (1-based).
  llvm::Error kernelCheckError(const Command &c, int32_t site) const;

  /// Runs commands [begin, end); loops run their bodies here recursively.
  llvm::Error runRange(size_t begin, size_t end, ThreadPool &pool, RunContext &ctx,
                       double *commandSeconds) const;

  /// A slice copy, with its offsets from registers where they are dynamic
  /// (checked against the shapes: an error, not a write out of bounds).
  llvm::Error runCopy(const CopyCommand &copy, RunContext &ctx, ThreadPool &pool) const;
};

} // namespace jitrun

#endif // JITRUN_RUNTIME_PROGRAM_H
