//===- HostLowering.h - the host function as a host program ---*- C++ -*-===//
//
// Private to the compiler library: the lowering of the host function
// (HostLowering.cpp), its in-place writes of slices (InPlaceWrites.cpp),
// shared concats (SharedConcats.cpp) and generic kernels (GenericKernels.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef JITRUN_COMPILER_HOSTLOWERING_H
#define JITRUN_COMPILER_HOSTLOWERING_H

#include "compiler/Compilation.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "llvm/ADT/DenseMap.h"

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <tuple>
#include <string>
#include <vector>

namespace jitrun {

/// `v` as a std::vector (strides kept in the host program's types).
inline std::vector<int64_t> toVector(llvm::ArrayRef<int64_t> v) { return {v.begin(), v.end()}; }

/// A box of a buffer: offsets and sizes per dim, and its bytes.
struct Box {
  std::vector<int64_t> offsets, sizes;
  int64_t bytes = 0;
  bool overlaps(llvm::ArrayRef<int64_t> o, llvm::ArrayRef<int64_t> s) const {
    for (size_t i = 0; i < offsets.size(); ++i)
      if (offsets[i] + sizes[i] <= o[i] || o[i] + s[i] <= offsets[i])
        return false;
    return true;
  }
};

/// Lowers the host function (the entry after fusion) to the HostProgram:
/// one method per op kind, each appending its commands and recording the
/// buffers or registers of its results.
class HostLowering {
public:
  HostLowering(Compilation &comp, mlir::ModuleOp module)
      : comp(comp), p(comp.program), module(module) {}

  /// Inputs and results of `entry`, then its body, then the buffer plan and
  /// each command's bytes for --profile.
  llvm::Error run(mlir::func::FuncOp entry);

private:
  llvm::Error lowerBlock(mlir::Block &block);
  llvm::Error lowerOp(mlir::Operation &op);
  llvm::Error lowerConstant(mlir::Operation &op, mlir::arith::ConstantOp cst);
  /// A dense_resource constant of `size` bytes, 64-byte aligned, held where
  /// it lies instead of copied: in the mapped cache entry (a warm start), or
  /// a blob that owns its data (fusion's weights, the cache's), which the
  /// program takes over. Its buffer, or none.
  std::optional<int> holdResource(mlir::ElementsAttr elements, size_t size);
  llvm::Error lowerCall(mlir::Operation &op, mlir::func::CallOp call);
  llvm::Error lowerFill(mlir::Operation &op, mlir::linalg::FillOp fill);
  llvm::Error lowerCast(mlir::Operation &op, mlir::tensor::CastOp cast);
  llvm::Error lowerInsertSlice(mlir::Operation &op, mlir::tensor::InsertSliceOp insert);
  llvm::Error lowerExtractSlice(mlir::Operation &op, mlir::tensor::ExtractSliceOp extract);
  llvm::Error lowerReturn(mlir::Operation &op, mlir::func::ReturnOp ret);
  llvm::Error lowerFor(mlir::Operation &op, mlir::scf::ForOp loop);
  llvm::Error lowerWhile(mlir::Operation &op, mlir::scf::WhileOp loop);
  llvm::Error lowerIf(mlir::Operation &op, mlir::scf::IfOp branch);
  llvm::Error lowerCondition(mlir::Operation &op, mlir::scf::ConditionOp cond);
  llvm::Error lowerYield(mlir::Operation &op, mlir::scf::YieldOp yield);
  llvm::Error lowerExtract(mlir::Operation &op, mlir::tensor::ExtractOp extract);
  /// An arith op on host scalars.
  llvm::Error lowerScalar(mlir::Operation &op);
  /// An insert_slice whose source a dispatch of this block computed, and
  /// read by nothing else: the dispatch writes it straight into its box of
  /// `out`, the insert's buffer (a branch's channels of a concat, a padded
  /// buffer's interior), instead of a copy moving it there. False when the
  /// box cannot be described as strides of the dispatch's result, or when
  /// a command between the dispatch and the insert reads `out` or writes an
  /// overlapping part of it.
  /// `storage`: the type of `out` when it is the shared buffer of concats
  /// (null: the insert's destination type).
  bool writeInPlace(mlir::tensor::InsertSliceOp insert, int out,
                    mlir::RankedTensorType storage = nullptr);
  /// Concats of the entry block that are prefixes of a larger one built
  /// from the same parts (DenseNet: each layer's input is the previous
  /// layer's plus one part) share the largest one's buffer: each part is
  /// written there once, and dispatches read each concat as a box of it
  /// (SharedConcats.cpp).
  void planSharedConcats(mlir::Block &block);
  /// An insert into a concat that shares a buffer: its part is written
  /// there unless an earlier concat wrote it.
  llvm::Error lowerSharedInsert(mlir::Operation &op, mlir::tensor::InsertSliceOp insert);
  /// Keeps the in-place writes worth their kernels, undoes the others (see
  /// InPlaceWrites.cpp), and drops the copies of those kept.
  void finishInPlaceWrites();
  /// Calls of dispatch functions that differ only in the size of one dim
  /// run one generic kernel, the dim passed at each call
  /// (GenericKernels.cpp).
  void generalizeKernels();
  /// A slice copy between `src` and the buffer of `dstVal` (an insert_slice
  /// when !sliceIsSource, an extract_slice when it is).
  llvm::Error makeCopy(mlir::Operation &op, mlir::Value src, mlir::RankedTensorType srcType, mlir::Value dstVal,
                       mlir::RankedTensorType dstType, llvm::ArrayRef<int64_t> offsets,
                       llvm::ArrayRef<int64_t> sizes, llvm::ArrayRef<int64_t> strides,
                       mlir::ValueRange dynamicOffsets, bool sliceIsSource);

  static std::string shapeName(mlir::Type t) {
    std::optional<TensorSpec> spec = tensorSpecOf(t);
    return spec ? spec->str() : std::string("?");
  }
  static unsigned widthOf(mlir::Type t) {
    if (auto i = llvm::dyn_cast<mlir::IntegerType>(t))
      return i.getWidth();
    return 64; // index, and floats (held as double)
  }
  int newIntermediate(mlir::Value v);
  /// A value's buffer, materialized on first use for tensor.empty.
  int lookup(mlir::Value v);
  /// `v` is an intermediate that no value read after `user` shares: `user`
  /// may write it in place.
  bool isExclusive(mlir::Value v, mlir::Operation *user);
  /// The register of host scalar `v` (constants get one on first use).
  std::optional<int> scalarReg(mlir::Value v);
  /// Loop-carried values live in buffers of their own: the region
  /// arguments, the loop results and what each iteration yields all land in
  /// them. transfer() copies `values` into `carried`, through temporaries
  /// when one value's buffer is another's destination (a swap).
  void transfer(mlir::ValueRange values, llvm::ArrayRef<int> carried);
  /// Buffers for a loop's carried `args`, filled from `inits`.
  llvm::Expected<std::vector<int>> carry(mlir::Operation *loop, mlir::ValueRange inits, mlir::ValueRange args);

  Compilation &comp;
  HostProgram &p;
  mlir::ModuleOp module;
  Statistics &stats = comp.stats;
  llvm::DenseMap<mlir::Value, int> bufferOf;
  /// Blobs holdResource took over, by their data.
  llvm::DenseMap<const void *, std::shared_ptr<const void>> heldBlobs;
  /// Scalars of the host program live in registers: constants get their
  /// value at the start of a run, the rest are computed by Scalar/Extract
  /// commands and loop counters.
  llvm::DenseMap<mlir::Value, int> regOf;
  std::vector<std::vector<int>> carriedStack;
  std::vector<size_t> whileStack; // the While commands being emitted
  /// A dispatch call: its command, and per result the element strides of
  /// the buffer it writes (empty: its own), decided by writeInPlace. Its
  /// kernel is registered after the whole function is lowered.
  struct CallSite {
    size_t command;
    mlir::func::FuncOp callee;
    std::vector<std::vector<int64_t>> resultStrides;
    std::vector<std::vector<int64_t>> argStrides = {};
    /// The generic kernel's function that this call runs instead of its
    /// callee, and the value of its dim here (generalizeKernels).
    mlir::func::FuncOp generic = nullptr;
    int64_t dim = -1;
  };
  /// The generic kernels' functions (not in the module).
  std::vector<mlir::OwningOpRef<mlir::func::FuncOp>> genericFunctions;
  std::vector<CallSite> calls;
  /// Each dispatch result: its call (index into `calls`) and result number.
  llvm::DenseMap<mlir::Value, std::pair<size_t, unsigned>> callResult;
  std::map<std::pair<size_t, size_t>, Box> inPlace; // (command, binding)
  /// A dispatch result written in place: its call, result number and
  /// binding, the buffer it had, and the copy of the insert, which stays
  /// in the program until finishInPlaceWrites() keeps the write.
  struct InPlaceWrite {
    size_t call;
    unsigned result;
    size_t binding;
    int ownBuffer;
    size_t copy;
  };
  std::vector<InPlaceWrite> inPlaceWrites;
  /// The values of a concat chain (its empty and each link) that shares a
  /// buffer, with the type of the largest concat, whose buffer it is.
  llvm::DenseMap<mlir::Value, mlir::RankedTensorType> sharedStorage;
  /// The parts written into shared buffers: (buffer, part, offsets).
  std::set<std::tuple<int, void *, std::vector<int64_t>>> sharedWritten;
  /// Dispatch arguments that read a box of a shared buffer: (command,
  /// binding) -> the box.
  std::map<std::pair<size_t, size_t>, Box> viewReads;
};

} // namespace jitrun

#endif // JITRUN_COMPILER_HOSTLOWERING_H
