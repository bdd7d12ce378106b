//===- jitrun-bench.cpp - jitrun vs oneDNN, side by side in one process ---===//
//
// A benchmark, not a test: it compiles a fixed set of kernels (matmuls,
// convolutions, a fused matmul epilogue, an element-wise chain) with jitrun,
// runs the equivalent oneDNN primitives on the same data, checks the results
// against each other once, and prints throughputs and their ratio. It never
// fails on the machine's noise; it exits non-zero only on a setup error.
//
//===----------------------------------------------------------------------===//

#include "api/Model.h"
#include "support/Tensor.h"
#include "support/ThreadPool.h"

#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <dnnl.hpp>

#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

using jitrun::ElementType;
using jitrun::HostTensor;
using dnnl::algorithm;
using dnnl::memory;
using dnnl::prop_kind;
using tag = dnnl::memory::format_tag;
using dt = dnnl::memory::data_type;
using Shape = std::vector<int64_t>;

namespace {

//===----------------------------------------------------------------------===//
// Options
//===----------------------------------------------------------------------===//

struct BenchOptions {
  unsigned threads = 1;
  std::string jsonPath = "bench.json";
  std::string filter;
  /// If set, each kernel's module is written to DIR/NAME.mlir (to replay it
  /// with `jitrun --profile`).
  std::string dumpDir;
  int trials = 5;
  double minSeconds = 0.3;
  int minIters = 5;
};

void usage() {
  llvm::outs()
      << "usage: jitrun-bench [--threads=N] [--json=PATH] [--filter=SUBSTR]\n"
         "                    [--trials=N] [--min-time=SECONDS] [--min-iters=N]\n"
         "  --threads=N      threads for jitrun and for oneDNN (default 1)\n"
         "  --json=PATH      results file (default bench.json)\n"
         "  --filter=SUBSTR  only kernels whose name contains SUBSTR\n"
         "  --dump-mlir=DIR  write each kernel's module to DIR/NAME.mlir\n"
         "  --trials=N       trials per side, the best is reported (default 5)\n"
         "  --min-time=S     minimum duration of one trial (default 0.3)\n"
         "  --min-iters=N    minimum iterations of one trial (default 5)\n";
}

bool parseArgs(int argc, char **argv, BenchOptions &o) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char *prefix, std::string &out) {
      size_t n = std::string(prefix).size();
      if (a.compare(0, n, prefix) != 0)
        return false;
      out = a.substr(n);
      return true;
    };
    std::string v;
    try {
      if (a == "--help" || a == "-h") {
        usage();
        std::exit(0);
      } else if (value("--threads=", v)) {
        long t = std::stol(v);
        if (t < 1 || t > 1024)
          throw std::invalid_argument("range");
        o.threads = static_cast<unsigned>(t);
      } else if (value("--json=", v)) {
        o.jsonPath = v;
      } else if (value("--dump-mlir=", v)) {
        o.dumpDir = v;
      } else if (value("--filter=", v)) {
        o.filter = v;
      } else if (value("--trials=", v)) {
        o.trials = std::max(1, std::stoi(v));
      } else if (value("--min-time=", v)) {
        o.minSeconds = std::max(0.0, std::stod(v));
      } else if (value("--min-iters=", v)) {
        o.minIters = std::max(1, std::stoi(v));
      } else {
        llvm::errs() << "jitrun-bench: error: unknown argument '" << a << "'\n";
        usage();
        return false;
      }
    } catch (const std::exception &) {
      llvm::errs() << "jitrun-bench: error: bad value in '" << a << "'\n";
      return false;
    }
  }
  return true;
}

/// oneDNN here is built on OpenMP; set its thread count through libgomp,
/// which libdnnl has already loaded (no link-time dependency on it).
void setOneDnnThreads(unsigned n) {
  using Fn = void (*)(int);
  if (auto fn = reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, "omp_set_num_threads")))
    fn(static_cast<int>(n));
  else
    llvm::errs() << "jitrun-bench: warning: omp_set_num_threads not found; "
                    "oneDNN uses its default thread count\n";
}

//===----------------------------------------------------------------------===//
// MLIR text
//===----------------------------------------------------------------------===//

std::string tensorType(const Shape &s, const char *elem = "f32") {
  std::string r = "tensor<";
  for (int64_t d : s)
    r += std::to_string(d) + "x";
  return r + elem + ">";
}

std::string joined(const Shape &v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? ", " : "") + std::to_string(v[i]);
  return s;
}

std::string dimList(size_t rank) {
  std::string s;
  for (size_t i = 0; i < rank; ++i)
    s += (i ? ", d" : "d") + std::to_string(i);
  return s;
}

std::string identityMap(size_t rank) {
  return "affine_map<(" + dimList(rank) + ") -> (" + dimList(rank) + ")>";
}

std::string parallel(size_t rank) {
  std::string s;
  for (size_t i = 0; i < rank; ++i)
    s += i ? ", \"parallel\"" : "\"parallel\"";
  return "[" + s + "]";
}

/// `%dst = linalg.fill(0) into tensor.empty()` of type `t`.
std::string zeroInit(const std::string &dst, const std::string &t) {
  return "  " + dst + "_empty = tensor.empty() : " + t + "\n  " + dst +
         " = linalg.fill ins(%zero : f32) outs(" + dst + "_empty : " + t +
         ") -> " + t + "\n";
}

const char *kZero = "  %zero = arith.constant 0.000000e+00 : f32\n";

std::string matmulModule(int64_t m, int64_t n, int64_t k) {
  std::string a = tensorType({m, k}), b = tensorType({k, n}), c = tensorType({m, n});
  return "func.func @main(%a: " + a + ", %b: " + b + ") -> " + c + " {\n" + kZero +
         zeroInit("%init", c) + "  %r = linalg.matmul ins(%a, %b : " + a + ", " +
         b + ") outs(%init : " + c + ") -> " + c + "\n  return %r : " + c + "\n}\n";
}

/// i8 A * i8 B accumulated in i32 (the int8 matmul of quantized models).
std::string int8MatmulModule(int64_t m, int64_t n, int64_t k) {
  std::string a = tensorType({m, k}, "i8"), b = tensorType({k, n}, "i8"),
              c = tensorType({m, n}, "i32");
  return "func.func @main(%a: " + a + ", %b: " + b + ") -> " + c + " {\n" +
         "  %zero = arith.constant 0 : i32\n  %e = tensor.empty() : " + c +
         "\n  %init = linalg.fill ins(%zero : i32) outs(%e : " + c + ") -> " + c +
         "\n  %r = linalg.matmul ins(%a, %b : " + a + ", " + b + ") outs(%init : " + c +
         ") -> " + c + "\n  return %r : " + c + "\n}\n";
}

/// i8 NHWC x i8 HWCF -> i32, unpadded, stride 1.
std::string int8ConvModule(const Shape &in, const Shape &flt, const Shape &out) {
  std::string it = tensorType(in, "i8"), ft = tensorType(flt, "i8"),
              ot = tensorType(out, "i32");
  return "func.func @main(%x: " + it + ", %w: " + ft + ") -> " + ot + " {\n" +
         "  %zero = arith.constant 0 : i32\n  %e = tensor.empty() : " + ot +
         "\n  %init = linalg.fill ins(%zero : i32) outs(%e : " + ot + ") -> " + ot +
         "\n  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, "
         "strides = dense<1> : tensor<2xi64>} ins(%x, %w : " + it + ", " + ft +
         ") outs(%init : " + ot + ") -> " + ot + "\n  return %r : " + ot + "\n}\n";
}

/// relu(A*B + bias[n] + residual[m, n]): one linalg.matmul and one generic.
std::string fusedMatmulModule(int64_t m, int64_t n, int64_t k) {
  std::string a = tensorType({m, k}), b = tensorType({k, n}), c = tensorType({m, n}),
              bias = tensorType({n});
  std::ostringstream os;
  os << "func.func @main(%a: " << a << ", %b: " << b << ", %bias: " << bias
     << ", %res: " << c << ") -> " << c << " {\n"
     << kZero << zeroInit("%init", c)
     << "  %mm = linalg.matmul ins(%a, %b : " << a << ", " << b
     << ") outs(%init : " << c << ") -> " << c << "\n"
     << "  %out = tensor.empty() : " << c << "\n"
     << "  %r = linalg.generic {indexing_maps = [" << identityMap(2)
     << ", affine_map<(d0, d1) -> (d1)>, " << identityMap(2) << ", "
     << identityMap(2) << "], iterator_types = " << parallel(2) << "}\n"
     << "      ins(%mm, %bias, %res : " << c << ", " << bias << ", " << c
     << ") outs(%out : " << c << ") {\n"
     << "  ^bb0(%x: f32, %y: f32, %z: f32, %o: f32):\n"
     << "    %c0 = arith.constant 0.000000e+00 : f32\n"
     << "    %s = arith.addf %x, %y : f32\n"
     << "    %t = arith.addf %s, %z : f32\n"
     << "    %u = arith.maximumf %t, %c0 : f32\n"
     << "    linalg.yield %u : f32\n"
     << "  } -> " << c << "\n"
     << "  return %r : " << c << "\n}\n";
  return os.str();
}

/// relu((a + b) * c) as three element-wise generics, for fusion to merge.
std::string elementwiseChainModule(const Shape &shape) {
  std::string t = tensorType(shape), id = identityMap(shape.size()),
              its = parallel(shape.size());
  auto binary = [&](const std::string &dst, const std::string &x,
                    const std::string &y, const char *op) {
    return "  " + dst + "_e = tensor.empty() : " + t + "\n  " + dst +
           " = linalg.generic {indexing_maps = [" + id + ", " + id + ", " + id +
           "], iterator_types = " + its + "}\n      ins(" + x + ", " + y +
           " : " + t + ", " + t + ") outs(" + dst + "_e : " + t + ") {\n" +
           "  ^bb0(%x: f32, %y: f32, %o: f32):\n    %v = " + op +
           " %x, %y : f32\n    linalg.yield %v : f32\n  } -> " + t + "\n";
  };
  return "func.func @main(%a: " + t + ", %b: " + t + ", %c: " + t + ") -> " + t +
         " {\n" + binary("%s", "%a", "%b", "arith.addf") +
         binary("%p", "%s", "%c", "arith.mulf") + "  %r_e = tensor.empty() : " + t +
         "\n  %r = linalg.generic {indexing_maps = [" + id + ", " + id +
         "], iterator_types = " + its + "}\n      ins(%p : " + t + ") outs(%r_e : " +
         t + ") {\n  ^bb0(%x: f32, %o: f32):\n" +
         "    %c0 = arith.constant 0.000000e+00 : f32\n" +
         "    %v = arith.maximumf %x, %c0 : f32\n    linalg.yield %v : f32\n  } -> " +
         t + "\n  return %r : " + t + "\n}\n";
}

/// A zero tensor.pad of H and W (dims hDim, hDim+1) of a rank-4 tensor.
std::string padOp(const Shape &shape, int hDim, int64_t pad, Shape &padded) {
  Shape lo(4, 0);
  lo[hDim] = lo[hDim + 1] = pad;
  padded = shape;
  padded[hDim] += 2 * pad;
  padded[hDim + 1] += 2 * pad;
  return "  %padded = tensor.pad %x low[" + joined(lo) + "] high[" + joined(lo) +
         "] {\n  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):\n" +
         "    tensor.yield %zero : f32\n  } : " + tensorType(shape) + " to " +
         tensorType(padded) + "\n";
}

/// Convolution, stride 1, dilation 1, symmetric zero padding `pad`.
/// kind: "conv_2d_nhwc_hwcf", "conv_2d_nchw_fchw" or
/// "depthwise_conv_2d_nhwc_hwc".
std::string convModule(const std::string &kind, const Shape &in,
                       const Shape &flt, const Shape &out, int64_t pad) {
  std::string it = tensorType(in), ft = tensorType(flt), ot = tensorType(out);
  std::string src = "%x", srcType = it, padText;
  if (pad) {
    Shape padded;
    padText = padOp(in, kind == "conv_2d_nchw_fchw" ? 2 : 1, pad, padded);
    src = "%padded";
    srcType = tensorType(padded);
  }
  const char *pair = "dense<[1, 1]> : tensor<2xi64>";
  return "func.func @main(%x: " + it + ", %w: " + ft + ") -> " + ot + " {\n" +
         kZero + padText + zeroInit("%init", ot) + "  %r = linalg." + kind +
         " {dilations = " + pair + ", strides = " + pair + "} ins(" + src +
         ", %w : " + srcType + ", " + ft + ") outs(%init : " + ot + ") -> " + ot +
         "\n  return %r : " + ot + "\n}\n";
}

//===----------------------------------------------------------------------===//
// Data
//===----------------------------------------------------------------------===//

HostTensor randomInt8Tensor(const Shape &shape, uint32_t seed) {
  HostTensor t(ElementType::I8, shape);
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> dist(-128, 127);
  int8_t *p = t.dataAs<int8_t>();
  for (int64_t i = 0; i < t.numElements(); ++i)
    p[i] = static_cast<int8_t>(dist(gen));
  return t;
}

HostTensor randomTensor(const Shape &shape, uint32_t seed) {
  HostTensor t(ElementType::F32, shape);
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  float *p = t.dataAs<float>();
  for (int64_t i = 0; i < t.numElements(); ++i)
    p[i] = dist(gen);
  return t;
}

/// Permutes a rank-4 tensor: result dim i is source dim perm[i].
HostTensor permute4(const HostTensor &src, const std::array<int, 4> &perm) {
  const Shape &s = src.shape();
  Shape d = {s[perm[0]], s[perm[1]], s[perm[2]], s[perm[3]]};
  HostTensor dst(ElementType::F32, d);
  int64_t stride[4] = {s[1] * s[2] * s[3], s[2] * s[3], s[3], 1};
  const float *in = src.dataAs<float>();
  float *out = dst.dataAs<float>();
  int64_t o = 0;
  for (int64_t a = 0; a < d[0]; ++a)
    for (int64_t b = 0; b < d[1]; ++b)
      for (int64_t c = 0; c < d[2]; ++c)
        for (int64_t e = 0; e < d[3]; ++e)
          out[o++] = in[a * stride[perm[0]] + b * stride[perm[1]] +
                        c * stride[perm[2]] + e * stride[perm[3]]];
  return dst;
}

//===----------------------------------------------------------------------===//
// oneDNN side
//===----------------------------------------------------------------------===//

struct Dnnl {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
};

Dnnl &dnnlCtx() {
  static Dnnl d;
  return d;
}

/// One prepared primitive: all memory bound, constant weights already in the
/// primitive's layout. run() is what gets timed.
struct OneDnnKernel {
  dnnl::primitive prim;
  std::unordered_map<int, memory> args;
  /// Host buffers the user memories wrap.
  std::vector<HostTensor> buffers;
  std::string impl;
  /// The result in jitrun's output layout (called once, after a run).
  std::function<HostTensor()> result;

  void run() {
    prim.execute(dnnlCtx().stream, args);
    dnnlCtx().stream.wait();
  }
};

memory wrap(const memory::desc &md, HostTensor &t) {
  return memory(md, dnnlCtx().engine, t.data());
}

memory::desc plain(const Shape &s) {
  static const tag tags[] = {tag::undef, tag::a, tag::ab, tag::abc, tag::abcd};
  return memory::desc(memory::dims(s.begin(), s.end()), dt::f32, tags[s.size()]);
}

/// dst = src @ weights (+ bias) with optional post-ops; all plain row-major.
std::unique_ptr<OneDnnKernel> oneDnnMatmul(const HostTensor &a, const HostTensor &b,
                                           const HostTensor *bias,
                                           const HostTensor *residual, bool relu) {
  auto k = std::make_unique<OneDnnKernel>();
  int64_t m = a.shape()[0], n = b.shape()[1];
  k->buffers.push_back(a.clone());
  k->buffers.push_back(b.clone());
  k->buffers.emplace_back(ElementType::F32, Shape{m, n});
  memory::desc amd = plain(a.shape()), bmd = plain(b.shape()), cmd = plain({m, n});
  dnnl::primitive_attr attr;
  dnnl::post_ops po;
  if (residual)
    po.append_binary(algorithm::binary_add, cmd);
  if (relu)
    po.append_eltwise(1.0f, algorithm::eltwise_relu, 0.0f, 0.0f);
  attr.set_post_ops(po);
  memory::desc biasMd = bias ? plain({1, n}) : memory::desc();
  dnnl::matmul::primitive_desc pd(
      bias ? dnnl::matmul::desc(amd, bmd, biasMd, cmd) : dnnl::matmul::desc(amd, bmd, cmd),
      attr, dnnlCtx().engine);
  k->impl = pd.impl_info_str();
  k->prim = dnnl::matmul(pd);
  k->args = {{DNNL_ARG_SRC, wrap(amd, k->buffers[0])},
             {DNNL_ARG_WEIGHTS, wrap(bmd, k->buffers[1])},
             {DNNL_ARG_DST, wrap(cmd, k->buffers[2])}};
  if (bias) {
    k->buffers.push_back(bias->clone());
    k->args[DNNL_ARG_BIAS] = wrap(biasMd, k->buffers.back());
  }
  if (residual) {
    k->buffers.push_back(residual->clone());
    k->args[DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1] =
        wrap(cmd, k->buffers.back());
  }
  HostTensor *dst = &k->buffers[2];
  k->result = [dst] { return dst->clone(); };
  return k;
}

/// A stride-1 convolution with NHWC source and destination (plain, as the
/// jitrun side sees them) and weights reordered once into the primitive's
/// preferred layout. `userW` describes the weights buffer `w`. f32, or s8
/// source and weights into s32 (`srcType` s8, `dstType` s32).
std::unique_ptr<OneDnnKernel> oneDnnConv(const HostTensor &xNhwc, const HostTensor &w,
                                         const memory::desc &userW,
                                         const memory::dims &wDims, int64_t f,
                                         int64_t kh, int64_t kw, int64_t pad,
                                         dt srcType = dt::f32, dt dstType = dt::f32) {
  auto k = std::make_unique<OneDnnKernel>();
  const Shape &is = xNhwc.shape();
  int64_t n = is[0], h = is[1], wd = is[2], c = is[3];
  int64_t oh = h + 2 * pad - kh + 1, ow = wd + 2 * pad - kw + 1;
  k->buffers.push_back(xNhwc.clone());
  k->buffers.emplace_back(dstType == dt::s32 ? ElementType::I32 : ElementType::F32,
                          Shape{n, oh, ow, f});
  memory::desc src({n, c, h, wd}, srcType, tag::nhwc);
  memory::desc dst({n, f, oh, ow}, dstType, tag::nhwc);
  memory::desc anyW(wDims, srcType, tag::any);
  dnnl::convolution_forward::desc d(prop_kind::forward_inference,
                                    algorithm::convolution_direct, src, anyW, dst,
                                    {1, 1}, {0, 0}, {pad, pad}, {pad, pad});
  dnnl::convolution_forward::primitive_desc pd(d, dnnlCtx().engine);
  k->impl = pd.impl_info_str();
  k->prim = dnnl::convolution_forward(pd);
  memory wUser(userW, dnnlCtx().engine, const_cast<void *>(w.data()));
  memory wPrim(pd.weights_desc(), dnnlCtx().engine);
  dnnl::reorder(wUser, wPrim).execute(dnnlCtx().stream, wUser, wPrim);
  dnnlCtx().stream.wait();
  k->args = {{DNNL_ARG_SRC, wrap(src, k->buffers[0])},
             {DNNL_ARG_WEIGHTS, wPrim},
             {DNNL_ARG_DST, wrap(dst, k->buffers[1])}};
  HostTensor *out = &k->buffers[1];
  k->result = [out] { return out->clone(); };
  return k;
}

/// s8 x s8 -> s32 matmul, plain layouts (weights as an input, as for f32).
std::unique_ptr<OneDnnKernel> oneDnnMatmulS8(const HostTensor &a, const HostTensor &b) {
  auto k = std::make_unique<OneDnnKernel>();
  int64_t m = a.shape()[0], kk = a.shape()[1], n = b.shape()[1];
  k->buffers.push_back(a.clone());
  k->buffers.push_back(b.clone());
  k->buffers.emplace_back(ElementType::I32, Shape{m, n});
  memory::desc amd({m, kk}, dt::s8, tag::ab), bmd({kk, n}, dt::s8, tag::ab),
      cmd({m, n}, dt::s32, tag::ab);
  dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(amd, bmd, cmd), dnnlCtx().engine);
  k->impl = pd.impl_info_str();
  k->prim = dnnl::matmul(pd);
  k->args = {{DNNL_ARG_SRC, wrap(amd, k->buffers[0])},
             {DNNL_ARG_WEIGHTS, wrap(bmd, k->buffers[1])},
             {DNNL_ARG_DST, wrap(cmd, k->buffers[2])}};
  HostTensor *dst = &k->buffers[2];
  k->result = [dst] { return dst->clone(); };
  return k;
}

/// relu((a + b) * c): binary add with a binary-mul and a relu post-op.
std::unique_ptr<OneDnnKernel> oneDnnElementwiseChain(const HostTensor &a,
                                                     const HostTensor &b,
                                                     const HostTensor &c) {
  auto k = std::make_unique<OneDnnKernel>();
  for (const HostTensor *t : {&a, &b, &c})
    k->buffers.push_back(t->clone());
  k->buffers.emplace_back(ElementType::F32, a.shape());
  memory::desc md = plain(a.shape());
  dnnl::post_ops po;
  po.append_binary(algorithm::binary_mul, md);
  po.append_eltwise(1.0f, algorithm::eltwise_relu, 0.0f, 0.0f);
  dnnl::primitive_attr attr;
  attr.set_post_ops(po);
  dnnl::binary::primitive_desc pd(dnnl::binary::desc(algorithm::binary_add, md, md, md),
                                  attr, dnnlCtx().engine);
  k->impl = pd.impl_info_str();
  k->prim = dnnl::binary(pd);
  k->args = {{DNNL_ARG_SRC_0, wrap(md, k->buffers[0])},
             {DNNL_ARG_SRC_1, wrap(md, k->buffers[1])},
             {DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, wrap(md, k->buffers[2])},
             {DNNL_ARG_DST, wrap(md, k->buffers[3])}};
  HostTensor *out = &k->buffers[3];
  k->result = [out] { return out->clone(); };
  return k;
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

/// One benchmark case: the jitrun module with its inputs and the matching
/// oneDNN primitive.
struct Case {
  std::string name;
  bool bandwidth = false;  // GB/s instead of GFLOP/s
  bool integer = false;    // i8 x i8 -> i32: GOP/s, exact results
  double work = 0;         // flops (or bytes) per run
  double reduction = 1;    // elements summed per output, for the tolerance
  std::string mlir;
  std::vector<HostTensor> inputs;
  std::unique_ptr<OneDnnKernel> ref;
};

using CaseFactory = std::pair<std::string, std::function<Case()>>;

CaseFactory matmulCase(int64_t m, int64_t n, int64_t k) {
  std::string name = "matmul_" + std::to_string(m) + "x" + std::to_string(n) + "x" +
                     std::to_string(k);
  return {name, [=] {
            Case c;
            c.name = name;
            c.work = 2.0 * m * n * k;
            c.reduction = static_cast<double>(k);
            c.mlir = matmulModule(m, n, k);
            c.inputs.push_back(randomTensor({m, k}, 1));
            c.inputs.push_back(randomTensor({k, n}, 2));
            c.ref = oneDnnMatmul(c.inputs[0], c.inputs[1], nullptr, nullptr, false);
            return c;
          }};
}

CaseFactory fusedMatmulCase(int64_t m, int64_t n, int64_t k) {
  std::string name = "matmul_bias_add_relu_" + std::to_string(m) + "x" +
                     std::to_string(n) + "x" + std::to_string(k);
  return {name, [=] {
            Case c;
            c.name = name;
            c.work = 2.0 * m * n * k + 3.0 * m * n;
            c.reduction = static_cast<double>(k);
            c.mlir = fusedMatmulModule(m, n, k);
            c.inputs.push_back(randomTensor({m, k}, 1));
            c.inputs.push_back(randomTensor({k, n}, 2));
            c.inputs.push_back(randomTensor({n}, 3));
            c.inputs.push_back(randomTensor({m, n}, 4));
            HostTensor bias2d = HostTensor::view(ElementType::F32, {1, n},
                                                 c.inputs[2].data());
            c.ref = oneDnnMatmul(c.inputs[0], c.inputs[1], &bias2d, &c.inputs[3], true);
            return c;
          }};
}

/// NHWC/HWCF or NCHW/FCHW convolution; oneDNN always runs it NHWC.
CaseFactory convCase(bool nchw, int64_t h, int64_t wd, int64_t ch, int64_t f,
                     int64_t kh, int64_t pad) {
  std::string name = std::string(nchw ? "conv_nchw_" : "conv_nhwc_") +
                     std::to_string(kh) + "x" + std::to_string(kh) + "_1x" +
                     std::to_string(h) + "x" + std::to_string(wd) + "x" +
                     std::to_string(ch) + "->" + std::to_string(f) +
                     (nchw ? "_vs_onednn_nhwc" : "");
  return {name, [=] {
            Case c;
            c.name = name;
            int64_t oh = h + 2 * pad - kh + 1, ow = wd + 2 * pad - kh + 1;
            c.work = 2.0 * oh * ow * f * ch * kh * kh;
            c.reduction = static_cast<double>(ch * kh * kh);
            HostTensor xNhwc = randomTensor({1, h, wd, ch}, 1);
            memory::dims wDims = {f, ch, kh, kh};
            if (!nchw) {
              c.mlir = convModule("conv_2d_nhwc_hwcf", {1, h, wd, ch}, {kh, kh, ch, f},
                                  {1, oh, ow, f}, pad);
              c.inputs.push_back(xNhwc.clone());
              c.inputs.push_back(randomTensor({kh, kh, ch, f}, 2));
              c.ref = oneDnnConv(xNhwc, c.inputs[1], memory::desc(wDims, dt::f32, tag::hwio),
                                 wDims, f, kh, kh, pad);
            } else {
              c.mlir = convModule("conv_2d_nchw_fchw", {1, ch, h, wd}, {f, ch, kh, kh},
                                  {1, f, oh, ow}, pad);
              c.inputs.push_back(permute4(xNhwc, {0, 3, 1, 2}));
              c.inputs.push_back(randomTensor({f, ch, kh, kh}, 2));
              c.ref = oneDnnConv(xNhwc, c.inputs[1], memory::desc(wDims, dt::f32, tag::oihw),
                                 wDims, f, kh, kh, pad);
              HostTensor *out = &c.ref->buffers[1];
              c.ref->result = [out] { return permute4(*out, {0, 3, 1, 2}); };
            }
            return c;
          }};
}

CaseFactory depthwiseCase(int64_t h, int64_t wd, int64_t ch, int64_t kh, int64_t pad) {
  std::string name = "depthwise_nhwc_" + std::to_string(kh) + "x" + std::to_string(kh) +
                     "_1x" + std::to_string(h) + "x" + std::to_string(wd) + "x" +
                     std::to_string(ch);
  return {name, [=] {
            Case c;
            c.name = name;
            int64_t oh = h + 2 * pad - kh + 1, ow = wd + 2 * pad - kh + 1;
            c.work = 2.0 * oh * ow * ch * kh * kh;
            c.reduction = static_cast<double>(kh * kh);
            c.mlir = convModule("depthwise_conv_2d_nhwc_hwc", {1, h, wd, ch},
                                {kh, kh, ch}, {1, oh, ow, ch}, pad);
            c.inputs.push_back(randomTensor({1, h, wd, ch}, 1));
            c.inputs.push_back(randomTensor({kh, kh, ch}, 2));
            // Grouped weights {G, 1, 1, KH, KW} over the HWC filter buffer.
            memory::dims wDims = {ch, 1, 1, kh, kh};
            memory::desc userW(wDims, dt::f32, memory::dims{1, 1, 1, kh * ch, ch});
            c.ref = oneDnnConv(c.inputs[0], c.inputs[1], userW, wDims, ch, kh, kh, pad);
            return c;
          }};
}

/// int8 (i8 x i8 -> i32) matmul and convolutions; exact results expected.
CaseFactory int8MatmulCase(int64_t m, int64_t n, int64_t k) {
  std::string name = "int8_matmul_" + std::to_string(m) + "x" + std::to_string(n) + "x" +
                     std::to_string(k);
  return {name, [=] {
            Case c;
            c.name = name;
            c.integer = true;
            c.work = 2.0 * m * n * k;
            c.mlir = int8MatmulModule(m, n, k);
            c.inputs.push_back(randomInt8Tensor({m, k}, 1));
            c.inputs.push_back(randomInt8Tensor({k, n}, 2));
            c.ref = oneDnnMatmulS8(c.inputs[0], c.inputs[1]);
            return c;
          }};
}

CaseFactory int8ConvCase(int64_t oh, int64_t ow, int64_t ch, int64_t f, int64_t kh) {
  std::string name = "int8_conv_nhwc_" + std::to_string(kh) + "x" + std::to_string(kh) +
                     "_1x" + std::to_string(oh) + "x" + std::to_string(ow) + "x" +
                     std::to_string(ch) + "->" + std::to_string(f);
  return {name, [=] {
            Case c;
            c.name = name;
            c.integer = true;
            c.work = 2.0 * oh * ow * f * ch * kh * kh;
            Shape in = {1, oh + kh - 1, ow + kh - 1, ch}, flt = {kh, kh, ch, f};
            c.mlir = int8ConvModule(in, flt, {1, oh, ow, f});
            c.inputs.push_back(randomInt8Tensor(in, 1));
            c.inputs.push_back(randomInt8Tensor(flt, 2));
            memory::dims wDims = {f, ch, kh, kh};
            c.ref = oneDnnConv(c.inputs[0], c.inputs[1], memory::desc(wDims, dt::s8, tag::hwio),
                               wDims, f, kh, kh, /*pad=*/0, dt::s8, dt::s32);
            return c;
          }};
}

CaseFactory elementwiseChainCase(int64_t rows, int64_t cols) {
  std::string name = "add_mul_relu_" + std::to_string(rows) + "x" + std::to_string(cols);
  return {name, [=] {
            Case c;
            c.name = name;
            c.bandwidth = true;
            c.work = 4.0 * sizeof(float) * rows * cols; // 3 reads + 1 write
            c.mlir = elementwiseChainModule({rows, cols});
            for (uint32_t s = 1; s <= 3; ++s)
              c.inputs.push_back(randomTensor({rows, cols}, s));
            c.ref = oneDnnElementwiseChain(c.inputs[0], c.inputs[1], c.inputs[2]);
            return c;
          }};
}

std::vector<CaseFactory> allCases() {
  return {
      matmulCase(256, 256, 256),
      matmulCase(1024, 1024, 1024),
      matmulCase(384, 768, 768),
      matmulCase(4225, 72, 12),
      matmulCase(4225, 48, 12),
      convCase(false, 56, 56, 64, 64, 3, 1),
      convCase(false, 56, 56, 64, 256, 1, 0),
      convCase(true, 56, 56, 64, 64, 3, 1),
      convCase(true, 56, 56, 64, 256, 1, 0),
      // ResNet-50's late stages: 14x14 and 7x7 images, many channels.
      convCase(false, 14, 14, 256, 256, 3, 1),
      convCase(false, 14, 14, 256, 1024, 1, 0),
      convCase(false, 14, 14, 1024, 256, 1, 0),
      convCase(false, 7, 7, 512, 512, 3, 1),
      convCase(false, 7, 7, 512, 2048, 1, 0),
      depthwiseCase(112, 112, 32, 3, 1),
      fusedMatmulCase(384, 768, 768),
      elementwiseChainCase(4096, 4096),
      int8MatmulCase(384, 768, 768),
      int8ConvCase(56, 56, 64, 64, 3),
      int8ConvCase(56, 56, 64, 256, 1),
  };
}

//===----------------------------------------------------------------------===//
// Timing
//===----------------------------------------------------------------------===//

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

/// Runs `fn` for at least `minSeconds` and `minIters` iterations; returns
/// seconds per iteration.
double trial(const std::function<void()> &fn, double minSeconds, int minIters) {
  int iters = 0;
  Clock::time_point start = Clock::now();
  double elapsed = 0;
  do {
    fn();
    ++iters;
    elapsed = secondsSince(start);
  } while (iters < minIters || elapsed < minSeconds);
  return elapsed / iters;
}

struct Result {
  std::string name, unit, error, onednnImpl, warning;
  double jitrun = 0, onednn = 0, compileMs = 0, maxDiff = 0, tolerance = 0;
  double jitrunSec = 0, onednnSec = 0;
  int trials = 0, minIters = 0;
  int64_t dispatches = 0, executables = 0, scalarOps = 0, vectorizedOps = 0;
};

std::string jsonString(const std::string &s) {
  std::string r = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') {
      r += '\\';
      r += ch;
    } else if (static_cast<unsigned char>(ch) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", ch);
      r += buf;
    } else {
      r += ch;
    }
  }
  return r + "\"";
}

std::string num(double v) {
  if (!std::isfinite(v))
    return "null";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

Result runCase(Case &c, const BenchOptions &o, jitrun::ThreadPool &pool) {
  Result r;
  r.name = c.name;
  r.unit = c.bandwidth ? "GB/s" : c.integer ? "GOP/s" : "GFLOP/s";
  r.onednnImpl = c.ref->impl;
  r.tolerance = c.integer ? 0 : 1e-3 * std::sqrt(c.reduction);

  Clock::time_point compileStart = Clock::now();
  auto model = jitrun::CompiledModel::compileBuffer(c.mlir, c.name + ".mlir",
                                                    jitrun::CompileOptions{});
  double compileWall = secondsSince(compileStart);
  std::unique_ptr<jitrun::CompiledModel> m;
  if (!model) {
    r.error = "compile: " + llvm::toString(model.takeError());
  } else {
    m = std::move(*model);
    const jitrun::Statistics &s = m->statistics();
    r.compileMs = 1e3 * (s.compileSeconds > 0 ? s.compileSeconds : compileWall);
    r.dispatches = s.dispatches;
    r.executables = s.executables;
    r.scalarOps = s.scalarOps;
    r.vectorizedOps = s.vectorizedOps;
  }

  std::vector<const HostTensor *> args;
  for (const HostTensor &t : c.inputs)
    args.push_back(&t);
  std::string runError;
  // Result tensors are allocated once, as an application would: the timed
  // runs write into them.
  std::vector<HostTensor> results;
  if (m)
    for (const jitrun::TensorSpec &spec : m->outputs())
      results.emplace_back(spec.type, spec.shape);
  auto runJitrun = [&] {
    if (llvm::Error e = m->runInto(args, results, pool)) {
      if (runError.empty())
        runError = llvm::toString(std::move(e));
      else
        llvm::consumeError(std::move(e));
    }
  };
  auto runOneDnn = [&] { c.ref->run(); };

  // Warm up once each and check jitrun against oneDNN.
  Clock::time_point t0 = Clock::now();
  runOneDnn();
  double oneDnnWarm = secondsSince(t0);
  double jitrunWarm = 0;
  if (m) {
    t0 = Clock::now();
    auto out = m->run(args, pool);
    jitrunWarm = secondsSince(t0);
    if (!out) {
      r.error = "run: " + llvm::toString(out.takeError());
      m.reset();
    } else {
      HostTensor expected = c.ref->result();
      const HostTensor &actual = (*out)[0];
      if (actual.shape() != expected.shape()) {
        r.error = "result shape " + actual.typeString() + " vs oneDNN " +
                  expected.typeString();
        m.reset();
      } else {
        double worst = 0;
        for (int64_t i = 0; i < actual.numElements(); ++i) {
          double d = std::fabs(actual.getAsDouble(i) - expected.getAsDouble(i));
          if (!(d <= worst)) // also catches NaN
            worst = std::isnan(d) ? std::numeric_limits<double>::infinity() : d;
        }
        r.maxDiff = worst;
        if (worst > r.tolerance)
          r.warning = "max abs diff " + num(worst) + " exceeds " +
                      (c.integer ? std::string("0 (exact)") : "1e-3*sqrt(K) = " + num(r.tolerance));
      }
    }
  }

  // A slow side gets fewer iterations so that the whole run stays short.
  double slowest = std::max(oneDnnWarm, jitrunWarm);
  r.trials = o.trials;
  r.minIters = o.minIters;
  if (slowest * o.minIters > 4 * o.minSeconds)
    r.minIters = std::max(1, static_cast<int>(std::ceil(o.minSeconds / slowest)));
  if (slowest * r.minIters * r.trials > 20)
    r.trials = std::max(2, static_cast<int>(20 / (slowest * r.minIters)));

  double bestJ = std::numeric_limits<double>::infinity(), bestO = bestJ;
  for (int t = 0; t < r.trials; ++t) {
    // Alternate the two sides so both see the same machine conditions.
    if (m)
      bestJ = std::min(bestJ, trial(runJitrun, o.minSeconds, r.minIters));
    bestO = std::min(bestO, trial(runOneDnn, o.minSeconds, r.minIters));
  }
  if (!runError.empty() && r.error.empty())
    r.error = "run: " + runError;
  double scale = 1e-9 * c.work;
  r.onednnSec = bestO;
  r.onednn = scale / bestO;
  if (m && runError.empty()) {
    r.jitrunSec = bestJ;
    r.jitrun = scale / bestJ;
  }
  return r;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  BenchOptions o;
  if (!parseArgs(argc, argv, o))
    return 1;
  setOneDnnThreads(o.threads);
  jitrun::ThreadPool pool(o.threads);

  llvm::outs() << "jitrun-bench: jitrun vs oneDNN " << DNNL_VERSION_MAJOR << "."
               << DNNL_VERSION_MINOR << "." << DNNL_VERSION_PATCH << ", f32, "
               << o.threads << " thread(s) each, same inputs, one process\n"
               << "Timing: one warm-up, then best of " << o.trials
               << " trials per side (each >= " << num(o.minSeconds) << " s and >= "
               << o.minIters << " iterations), trials of the two sides alternate.\n"
               << "ratio = jitrun / onednn (>1: jitrun faster). compile = jitrun "
                  "compile time of the module. maxdiff = max |jitrun - onednn|.\n"
               << "Note: these are best-of-N numbers on a shared, noisy machine; "
                  "compare ratios, not absolute values.\n";
  llvm::outs().flush();

  std::vector<Result> results;
  bool anyFailed = false;
  for (auto &[name, make] : allCases()) {
    if (!o.filter.empty() && name.find(o.filter) == std::string::npos)
      continue;
    Result r;
    try {
      Case c = make();
      if (!o.dumpDir.empty()) {
        std::error_code ec;
        llvm::raw_fd_ostream f(o.dumpDir + "/" + c.name + ".mlir", ec);
        if (ec)
          llvm::errs() << "jitrun-bench: warning: cannot write to " << o.dumpDir
                       << ": " << ec.message() << "\n";
        else
          f << c.mlir;
      }
      r = runCase(c, o, pool);
    } catch (const dnnl::error &e) {
      r.name = name;
      r.error = std::string("oneDNN: ") + e.what();
    }
    char line[512];
    if (r.onednn > 0 && r.jitrun > 0)
      std::snprintf(line, sizeof line,
                    "%-44s jitrun=%8.2f %s  onednn=%8.2f %s  ratio=%5.2f  "
                    "compile=%7.1f ms  maxdiff=%.2e",
                    r.name.c_str(), r.jitrun, r.unit.c_str(), r.onednn, r.unit.c_str(),
                    r.jitrun / r.onednn, r.compileMs, r.maxDiff);
    else
      std::snprintf(line, sizeof line,
                    "%-44s jitrun=  FAILED %s  onednn=%8.2f %s  ratio=  n/a",
                    r.name.c_str(), r.unit.c_str(), r.onednn, r.unit.c_str());
    llvm::outs() << line;
    if (r.trials && (r.trials != o.trials || r.minIters != o.minIters))
      llvm::outs() << "  (best of " << r.trials << " x " << r.minIters << " iters)";
    llvm::outs() << "\n";
    if (!r.warning.empty())
      llvm::outs() << "  warning: " << r.name << ": " << r.warning << "\n";
    if (!r.error.empty()) {
      anyFailed = true;
      llvm::outs() << "  error: " << r.name << ": " << r.error << "\n";
    }
    llvm::outs().flush();
    results.push_back(std::move(r));
  }

  std::error_code ec;
  llvm::raw_fd_ostream json(o.jsonPath, ec);
  if (ec) {
    llvm::errs() << "jitrun-bench: error: cannot write " << o.jsonPath << ": "
                 << ec.message() << "\n";
    return 1;
  }
  json << "{\"threads\": " << o.threads << ", \"trials\": " << o.trials
       << ", \"min_seconds\": " << num(o.minSeconds)
       << ", \"min_iters\": " << o.minIters << ", \"statistic\": \"best\",\n"
       << " \"note\": \"best-of-N on a shared noisy machine\",\n \"kernels\": [";
  for (size_t i = 0; i < results.size(); ++i) {
    const Result &r = results[i];
    json << (i ? ",\n" : "\n") << "  {\"name\": " << jsonString(r.name)
         << ", \"unit\": " << jsonString(r.unit)
         << ", \"jitrun\": " << (r.jitrun > 0 ? num(r.jitrun) : "null")
         << ", \"onednn\": " << (r.onednn > 0 ? num(r.onednn) : "null")
         << ", \"ratio\": "
         << (r.jitrun > 0 && r.onednn > 0 ? num(r.jitrun / r.onednn) : "null")
         << ", \"jitrun_ms\": " << (r.jitrun > 0 ? num(1e3 * r.jitrunSec) : "null")
         << ", \"onednn_ms\": " << (r.onednn > 0 ? num(1e3 * r.onednnSec) : "null")
         << ", \"compile_ms\": " << num(r.compileMs)
         << ", \"max_abs_diff\": " << num(r.maxDiff)
         << ", \"tolerance\": " << num(r.tolerance)
         << ", \"trials\": " << r.trials << ", \"min_iters\": " << r.minIters
         << ", \"dispatches\": " << r.dispatches
         << ", \"executables\": " << r.executables
         << ", \"vectorized_ops\": " << r.vectorizedOps
         << ", \"scalar_ops\": " << r.scalarOps
         << ", \"onednn_impl\": " << jsonString(r.onednnImpl);
    if (!r.warning.empty())
      json << ", \"warning\": " << jsonString(r.warning);
    if (!r.error.empty())
      json << ", \"error\": " << jsonString(r.error);
    json << "}";
  }
  json << "\n]}\n";
  llvm::outs() << "wrote " << o.jsonPath << "\n";
  (void)anyFailed; // a benchmark reports failures, it does not fail on them
  return 0;
}
