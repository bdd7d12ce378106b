//===- OneDnn.cpp - oneDNN primitives as references and benchmark peers ---===//
//
// Thin wrappers over oneDNN 2.6 primitives (dnnl.hpp). User memory wraps
// copies of the caller's HostTensors in the layouts the MLIR uses (format
// tags or explicit strides); where the primitive prefers another layout the
// input is reordered once, at prepare time.
//
//===----------------------------------------------------------------------===//

#include "testing/OneDnn.h"

#include <dnnl.hpp>

#include <deque>
#include <stdexcept>
#include <unordered_map>
#include <vector>

namespace jitrun {
namespace testing {
namespace onednn {

using dnnl::algorithm;
using dnnl::memory;
using dnnl::prop_kind;
using tag = dnnl::memory::format_tag;
using dt = dnnl::memory::data_type;

namespace {

/// The engine and stream shared by all primitives (created on first use).
struct Context {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
};

Context &ctx() {
  static Context c;
  return c;
}

memory::dims toDims(const std::vector<int64_t> &shape) {
  return memory::dims(shape.begin(), shape.end());
}

/// Row-major ("plain") format tag of a given rank.
tag plainTag(size_t rank) {
  static const tag tags[] = {tag::undef, tag::a, tag::ab, tag::abc, tag::abcd, tag::abcde};
  if (rank == 0 || rank > 5)
    throw std::runtime_error("oneDNN: unsupported rank " + std::to_string(rank));
  return tags[rank];
}

memory::desc plainDesc(const std::vector<int64_t> &shape, dt type = dt::f32) {
  return memory::desc(toDims(shape), type, plainTag(shape.size()));
}

int64_t outSize(int64_t in, int64_t k, int64_t s, int64_t d, int64_t pl, int64_t pr) {
  return (in + pl + pr - d * (k - 1) - 1) / s + 1;
}

} // namespace

std::string version() {
  const dnnl_version_t *v = dnnl_version();
  return std::to_string(v->major) + "." + std::to_string(v->minor) + "." +
         std::to_string(v->patch);
}

struct Prepared::State {
  dnnl::primitive primitive;
  std::unordered_map<int, memory> args;
  /// Copies of the inputs the user memories wrap (stable addresses).
  std::deque<HostTensor> inputs;
  /// The result in the caller's layout, and the memory the primitive writes.
  HostTensor out;
  memory outUser, outPrimitive;
  std::string implementation;

  /// Binds `t` (copied) in layout `user` as argument `arg`, reordered once
  /// into `want` if the primitive wants another layout.
  void bindInput(int arg, const memory::desc &user, const HostTensor &t,
                 const memory::desc &want) {
    inputs.push_back(t.clone());
    memory m(user, ctx().engine, inputs.back().data());
    if (want != user) {
      memory reordered(want, ctx().engine);
      dnnl::reorder(m, reordered).execute(ctx().stream, m, reordered);
      ctx().stream.wait();
      m = reordered;
    }
    args[arg] = m;
  }
  void bindInput(int arg, const memory::desc &user, const HostTensor &t) {
    bindInput(arg, user, t, user);
  }

  /// The destination: a `shape` tensor of `type` in layout `user`, written
  /// by the primitive in layout `want`.
  void bindOutput(const memory::desc &user, ElementType type, const Shape &shape,
                  const memory::desc &want) {
    out = HostTensor(type, shape);
    outUser = memory(user, ctx().engine, out.data());
    outPrimitive = want == user ? outUser : memory(want, ctx().engine);
    args[DNNL_ARG_DST] = outPrimitive;
  }

  void create(const dnnl::primitive_desc_base &pd, dnnl::primitive p) {
    implementation = pd.impl_info_str();
    primitive = std::move(p);
  }
};

Prepared::Prepared(std::unique_ptr<State> state) : state_(std::move(state)) {}
Prepared::~Prepared() = default;

void Prepared::run() {
  state_->primitive.execute(ctx().stream, state_->args);
  ctx().stream.wait();
}

HostTensor Prepared::result() const {
  if (state_->outPrimitive != state_->outUser) {
    dnnl::reorder(state_->outPrimitive, state_->outUser)
        .execute(ctx().stream, state_->outPrimitive, state_->outUser);
    ctx().stream.wait();
  }
  return state_->out.clone();
}

const std::string &Prepared::implementation() const { return state_->implementation; }

namespace {
HostTensor once(std::unique_ptr<Prepared> p) {
  p->run();
  return p->result();
}

/// A forward-inference direct convolution from user descriptors, weights in
/// the primitive's layout, activations as `activations` says.
std::unique_ptr<Prepared> convolution(const HostTensor &input, const HostTensor &filter,
                                      const memory::desc &userSrc, const memory::desc &userW,
                                      const memory::desc &userDst, ElementType outType,
                                      const Shape &outShape, const Window2D &w,
                                      Activations activations) {
  auto s = std::make_unique<Prepared::State>();
  auto any = [](const memory::desc &d) {
    return memory::desc(d.dims(), d.data_type(), tag::any);
  };
  bool caller = activations == Activations::Caller;
  dnnl::convolution_forward::desc d(
      prop_kind::forward_inference, algorithm::convolution_direct,
      caller ? userSrc : any(userSrc), any(userW), caller ? userDst : any(userDst),
      {w.strideH, w.strideW}, {w.dilationH - 1, w.dilationW - 1}, {w.padTop, w.padLeft},
      {w.padBottom, w.padRight});
  dnnl::convolution_forward::primitive_desc pd(d, ctx().engine);
  s->create(pd, dnnl::convolution_forward(pd));
  s->bindInput(DNNL_ARG_SRC, userSrc, input, pd.src_desc());
  s->bindInput(DNNL_ARG_WEIGHTS, userW, filter, pd.weights_desc());
  s->bindOutput(userDst, outType, outShape, pd.dst_desc());
  return std::make_unique<Prepared>(std::move(s));
}
} // namespace

std::unique_ptr<Prepared> prepareMatmul(const HostTensor &a, const HostTensor &b,
                                        const MatmulEpilogue &epilogue) {
  auto s = std::make_unique<Prepared::State>();
  const Shape &as = a.shape(), &bs = b.shape();
  Shape cs = as.size() == 2 ? Shape{as[0], bs[1]} : Shape{as[0], as[1], bs[2]};
  memory::desc amd = plainDesc(as), bmd = plainDesc(bs), cmd = plainDesc(cs);
  dnnl::primitive_attr attr;
  dnnl::post_ops po;
  if (epilogue.residual)
    po.append_binary(algorithm::binary_add, cmd);
  if (epilogue.relu)
    po.append_eltwise(1.0f, algorithm::eltwise_relu, 0.0f, 0.0f);
  attr.set_post_ops(po);
  memory::desc biasMd = epilogue.bias ? plainDesc({1, cs.back()}) : memory::desc();
  dnnl::matmul::primitive_desc pd(epilogue.bias ? dnnl::matmul::desc(amd, bmd, biasMd, cmd)
                                                : dnnl::matmul::desc(amd, bmd, cmd),
                                  attr, ctx().engine);
  s->create(pd, dnnl::matmul(pd));
  s->bindInput(DNNL_ARG_SRC, amd, a);
  s->bindInput(DNNL_ARG_WEIGHTS, bmd, b);
  if (epilogue.bias)
    s->bindInput(DNNL_ARG_BIAS, biasMd, *epilogue.bias);
  if (epilogue.residual)
    s->bindInput(DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, cmd, *epilogue.residual);
  s->bindOutput(cmd, ElementType::F32, cs, cmd);
  return std::make_unique<Prepared>(std::move(s));
}

HostTensor matmul(const HostTensor &a, const HostTensor &b) { return once(prepareMatmul(a, b)); }

/// A plain matmul (2-D, or batched 3-D) of `in` operands into `out`, `outType` in
/// jitrun's terms.
static std::unique_ptr<Prepared> prepareTypedMatmul(const HostTensor &a, const HostTensor &b,
                                                    dt in, dt out, ElementType outType) {
  auto s = std::make_unique<Prepared::State>();
  // [M, K] x [K, N], or batches of them: [B, M, K] x [B, K, N].
  Shape cs = a.shape();
  cs.back() = b.shape().back();
  memory::desc amd = plainDesc(a.shape(), in), bmd = plainDesc(b.shape(), in),
               cmd = plainDesc(cs, out);
  dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(amd, bmd, cmd), ctx().engine);
  s->create(pd, dnnl::matmul(pd));
  s->bindInput(DNNL_ARG_SRC, amd, a);
  s->bindInput(DNNL_ARG_WEIGHTS, bmd, b);
  s->bindOutput(cmd, outType, cs, cmd);
  return std::make_unique<Prepared>(std::move(s));
}

std::unique_ptr<Prepared> prepareMatmulS8(const HostTensor &a, const HostTensor &b) {
  return prepareTypedMatmul(a, b, dt::s8, dt::s32, ElementType::I32);
}

std::unique_ptr<Prepared> prepareMatmulBf16(const HostTensor &a, const HostTensor &b) {
  return prepareTypedMatmul(a, b, dt::bf16, dt::f32, ElementType::F32);
}

HostTensor matmulBf16(const HostTensor &a, const HostTensor &b) {
  return once(prepareMatmulBf16(a, b));
}

/// oneDNN's data type of a float ElementType.
static dt floatDt(ElementType t) {
  return t == ElementType::BF16 ? dt::bf16 : t == ElementType::F16 ? dt::f16 : dt::f32;
}

HostTensor matmulTyped(const HostTensor &a, const HostTensor &b, ElementType out) {
  return once(prepareTypedMatmul(a, b, floatDt(a.elementType()), floatDt(out), out));
}

HostTensor matmulS8(const HostTensor &a, const HostTensor &b) {
  return once(prepareMatmulS8(a, b));
}

std::unique_ptr<Prepared> prepareConv2d(const HostTensor &input, const HostTensor &filter,
                                        ConvLayout layout, const Window2D &w,
                                        Activations activations) {
  const Shape &is = input.shape(), &fs = filter.shape();
  bool nhwc = layout == ConvLayout::NHWC_HWCF;
  int64_t n = is[0], c = nhwc ? is[3] : is[1], h = nhwc ? is[1] : is[2],
          wd = nhwc ? is[2] : is[3];
  int64_t kh = nhwc ? fs[0] : fs[2], kw = nhwc ? fs[1] : fs[3], f = nhwc ? fs[3] : fs[0];
  int64_t oh = outSize(h, kh, w.strideH, w.dilationH, w.padTop, w.padBottom);
  int64_t ow = outSize(wd, kw, w.strideW, w.dilationW, w.padLeft, w.padRight);
  Shape os = nhwc ? Shape{n, oh, ow, f} : Shape{n, f, oh, ow};
  memory::desc userSrc({n, c, h, wd}, dt::f32, nhwc ? tag::nhwc : tag::nchw);
  memory::desc userW({f, c, kh, kw}, dt::f32, nhwc ? tag::hwio : tag::oihw);
  memory::desc userDst({n, f, oh, ow}, dt::f32, nhwc ? tag::nhwc : tag::nchw);
  return convolution(input, filter, userSrc, userW, userDst, ElementType::F32, os, w,
                     activations);
}

HostTensor conv2d(const HostTensor &input, const HostTensor &filter, ConvLayout layout,
                  const Window2D &w) {
  return once(prepareConv2d(input, filter, layout, w));
}

HostTensor conv2dTyped(const HostTensor &input, const HostTensor &filter, const Window2D &w,
                       ElementType out) {
  const Shape &is = input.shape(), &fs = filter.shape();
  int64_t n = is[0], h = is[1], wd = is[2], c = is[3];
  int64_t kh = fs[0], kw = fs[1], f = fs[3];
  int64_t oh = outSize(h, kh, w.strideH, w.dilationH, w.padTop, w.padBottom);
  int64_t ow = outSize(wd, kw, w.strideW, w.dilationW, w.padLeft, w.padRight);
  dt in = floatDt(input.elementType());
  memory::desc userSrc({n, c, h, wd}, in, tag::nhwc);
  memory::desc userW({f, c, kh, kw}, in, tag::hwio);
  memory::desc userDst({n, f, oh, ow}, floatDt(out), tag::nhwc);
  return once(convolution(input, filter, userSrc, userW, userDst, out, {n, oh, ow, f}, w,
                          Activations::Preferred));
}

std::unique_ptr<Prepared> prepareConv2dS8(const HostTensor &input, const HostTensor &filter,
                                          const Window2D &w, Activations activations) {
  const Shape &is = input.shape(), &fs = filter.shape();
  int64_t n = is[0], h = is[1], wd = is[2], c = is[3];
  int64_t kh = fs[0], kw = fs[1], f = fs[3];
  int64_t oh = outSize(h, kh, w.strideH, w.dilationH, w.padTop, w.padBottom);
  int64_t ow = outSize(wd, kw, w.strideW, w.dilationW, w.padLeft, w.padRight);
  memory::desc userSrc({n, c, h, wd}, dt::s8, tag::nhwc);
  memory::desc userW({f, c, kh, kw}, dt::s8, tag::hwio);
  memory::desc userDst({n, f, oh, ow}, dt::s32, tag::nhwc);
  return convolution(input, filter, userSrc, userW, userDst, ElementType::I32,
                     {n, oh, ow, f}, w, activations);
}

HostTensor conv2dS8(const HostTensor &input, const HostTensor &filter, const Window2D &w) {
  return once(prepareConv2dS8(input, filter, w));
}

std::unique_ptr<Prepared> prepareDepthwiseConv2d(const HostTensor &input,
                                                 const HostTensor &filter, const Window2D &w,
                                                 bool nchw, Activations activations) {
  const Shape &is = input.shape(), &fs = filter.shape();
  int64_t n = is[0], h = nchw ? is[2] : is[1], wd = nchw ? is[3] : is[2],
          c = nchw ? is[1] : is[3];
  int64_t kh = nchw ? fs[1] : fs[0], kw = nchw ? fs[2] : fs[1];
  int64_t oh = outSize(h, kh, w.strideH, w.dilationH, w.padTop, w.padBottom);
  int64_t ow = outSize(wd, kw, w.strideW, w.dilationW, w.padLeft, w.padRight);
  // Grouped weights {G, O/G, I/G, KH, KW} = {C, 1, 1, KH, KW}. Over an HWC
  // filter buffer element [kh][kw][g] sits at kh*KW*C + kw*C + g; over a CHW
  // one, at g*KH*KW + kh*KW + kw.
  memory::desc userW({c, 1, 1, kh, kw}, dt::f32,
                     nchw ? memory::dims{kh * kw, 1, 1, kw, 1}
                          : memory::dims{1, 1, 1, kw * c, c});
  memory::desc userSrc({n, c, h, wd}, dt::f32, nchw ? tag::nchw : tag::nhwc);
  memory::desc userDst({n, c, oh, ow}, dt::f32, nchw ? tag::nchw : tag::nhwc);
  return convolution(input, filter, userSrc, userW, userDst, ElementType::F32,
                     nchw ? Shape{n, c, oh, ow} : Shape{n, oh, ow, c}, w, activations);
}

HostTensor depthwiseConv2d(const HostTensor &input, const HostTensor &filter,
                           const Window2D &w, bool nchw) {
  return once(prepareDepthwiseConv2d(input, filter, w, nchw));
}

std::unique_ptr<Prepared> preparePool2d(const HostTensor &input, PoolKind kind, int64_t kernelH,
                                        int64_t kernelW, const Window2D &w) {
  auto s = std::make_unique<Prepared::State>();
  const Shape &is = input.shape();
  int64_t n = is[0], h = is[1], wd = is[2], c = is[3];
  int64_t oh = outSize(h, kernelH, w.strideH, 1, w.padTop, w.padBottom);
  int64_t ow = outSize(wd, kernelW, w.strideW, 1, w.padLeft, w.padRight);
  memory::desc srcMd({n, c, h, wd}, dt::f32, tag::nhwc);
  memory::desc dstMd({n, c, oh, ow}, dt::f32, tag::nhwc);
  algorithm alg = kind == PoolKind::Max ? algorithm::pooling_max
                                        : algorithm::pooling_avg_include_padding;
  dnnl::pooling_forward::desc d(prop_kind::forward_inference, alg, srcMd, dstMd,
                                {w.strideH, w.strideW}, {kernelH, kernelW},
                                {w.padTop, w.padLeft}, {w.padBottom, w.padRight});
  dnnl::pooling_forward::primitive_desc pd(d, ctx().engine);
  s->create(pd, dnnl::pooling_forward(pd));
  s->bindInput(DNNL_ARG_SRC, srcMd, input);
  s->bindOutput(dstMd, ElementType::F32, {n, oh, ow, c}, dstMd);
  // Forward-inference max pooling needs no workspace, but ask anyway.
  if (pd.workspace_desc().get_size() != 0)
    s->args[DNNL_ARG_WORKSPACE] = memory(pd.workspace_desc(), ctx().engine);
  return std::make_unique<Prepared>(std::move(s));
}

HostTensor pool2d(const HostTensor &input, PoolKind kind, int64_t kernelH, int64_t kernelW,
                  const Window2D &w) {
  return once(preparePool2d(input, kind, kernelH, kernelW, w));
}

std::unique_ptr<Prepared> prepareEltwise(const HostTensor &src, Eltwise kind, float alpha,
                                         float beta) {
  auto s = std::make_unique<Prepared::State>();
  algorithm alg = algorithm::eltwise_relu;
  switch (kind) {
  case Eltwise::Relu:
    alg = algorithm::eltwise_relu;
    alpha = 0.0f;
    break;
  case Eltwise::Clip:
    alg = algorithm::eltwise_clip;
    break;
  case Eltwise::Logistic:
    alg = algorithm::eltwise_logistic;
    break;
  case Eltwise::Tanh:
    alg = algorithm::eltwise_tanh;
    break;
  case Eltwise::Exp:
    alg = algorithm::eltwise_exp;
    break;
  }
  memory::desc md = plainDesc(src.shape());
  dnnl::eltwise_forward::primitive_desc pd(
      dnnl::eltwise_forward::desc(prop_kind::forward_inference, alg, md, alpha, beta),
      ctx().engine);
  s->create(pd, dnnl::eltwise_forward(pd));
  s->bindInput(DNNL_ARG_SRC, md, src);
  s->bindOutput(md, ElementType::F32, src.shape(), md);
  return std::make_unique<Prepared>(std::move(s));
}

HostTensor eltwise(const HostTensor &src, Eltwise kind, float alpha, float beta) {
  return once(prepareEltwise(src, kind, alpha, beta));
}

std::unique_ptr<Prepared> prepareBinary(const HostTensor &a, const HostTensor &b, Binary kind,
                                        const BinaryEpilogue &epilogue) {
  auto s = std::make_unique<Prepared::State>();
  memory::desc amd = plainDesc(a.shape()), bmd = plainDesc(b.shape());
  algorithm alg = kind == Binary::Add ? algorithm::binary_add : algorithm::binary_mul;
  dnnl::primitive_attr attr;
  dnnl::post_ops po;
  if (epilogue.mul)
    po.append_binary(algorithm::binary_mul, amd);
  if (epilogue.relu)
    po.append_eltwise(1.0f, algorithm::eltwise_relu, 0.0f, 0.0f);
  attr.set_post_ops(po);
  dnnl::binary::primitive_desc pd(dnnl::binary::desc(alg, amd, bmd, amd), attr, ctx().engine);
  s->create(pd, dnnl::binary(pd));
  s->bindInput(DNNL_ARG_SRC_0, amd, a);
  s->bindInput(DNNL_ARG_SRC_1, bmd, b);
  if (epilogue.mul)
    s->bindInput(DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, amd, *epilogue.mul);
  s->bindOutput(amd, ElementType::F32, a.shape(), amd);
  return std::make_unique<Prepared>(std::move(s));
}

HostTensor binary(const HostTensor &a, const HostTensor &b, Binary kind, bool reluPostOp) {
  BinaryEpilogue epilogue;
  epilogue.relu = reluPostOp;
  return once(prepareBinary(a, b, kind, epilogue));
}

std::unique_ptr<Prepared> prepareSoftmaxLastDim(const HostTensor &src) {
  auto s = std::make_unique<Prepared::State>();
  memory::desc md = plainDesc(src.shape());
  dnnl::softmax_forward::primitive_desc pd(
      dnnl::softmax_forward::desc(prop_kind::forward_inference, md,
                                  static_cast<int>(src.shape().size()) - 1),
      ctx().engine);
  s->create(pd, dnnl::softmax_forward(pd));
  s->bindInput(DNNL_ARG_SRC, md, src);
  s->bindOutput(md, ElementType::F32, src.shape(), md);
  return std::make_unique<Prepared>(std::move(s));
}

HostTensor softmaxLastDim(const HostTensor &src) { return once(prepareSoftmaxLastDim(src)); }

} // namespace onednn
} // namespace testing
} // namespace jitrun
