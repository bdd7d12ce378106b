//===- OneDnnRef.cpp - oneDNN reference computations for the e2e tests ----===//
//
// Thin wrappers over oneDNN 2.6 primitives (dnnl.hpp). User memory wraps the
// HostTensor buffers in the layouts the MLIR uses (described by format tags
// or explicit strides); convolutions let oneDNN choose ("any") and reorder.
//
//===----------------------------------------------------------------------===//

#include "OneDnnRef.h"

#include <dnnl.hpp>

#include <stdexcept>
#include <string>
#include <unordered_map>

namespace jitrun {
namespace e2e {
namespace onednn {

using dnnl::algorithm;
using dnnl::memory;
using dnnl::prop_kind;
using tag = dnnl::memory::format_tag;
using dt = dnnl::memory::data_type;

namespace {

/// The engine and stream shared by all references (created on first use).
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
  switch (rank) {
  case 1:
    return tag::a;
  case 2:
    return tag::ab;
  case 3:
    return tag::abc;
  case 4:
    return tag::abcd;
  case 5:
    return tag::abcde;
  default:
    throw std::runtime_error("oneDNN reference: unsupported rank " +
                             std::to_string(rank));
  }
}

memory::desc plainDesc(const std::vector<int64_t> &shape) {
  return memory::desc(toDims(shape), dt::f32, plainTag(shape.size()));
}

/// Wraps a HostTensor's buffer (no copy).
memory wrap(const memory::desc &md, const HostTensor &t) {
  return memory(md, ctx().engine, const_cast<void *>(t.data()));
}

/// Returns `user` if the primitive wants its layout, else a reordered copy.
memory toPrimitive(memory user, const memory::desc &want) {
  if (user.get_desc() == want)
    return user;
  memory m(want, ctx().engine);
  dnnl::reorder(user, m).execute(ctx().stream, user, m);
  return m;
}

/// Copies `prim` into `user` if they differ.
void fromPrimitive(memory prim, memory user) {
  if (prim.get_desc() == user.get_desc())
    return;
  dnnl::reorder(prim, user).execute(ctx().stream, prim, user);
}

int64_t outSize(int64_t in, int64_t k, int64_t s, int64_t d, int64_t pl,
                int64_t pr) {
  return (in + pl + pr - d * (k - 1) - 1) / s + 1;
}

} // namespace

HostTensor matmul(const HostTensor &a, const HostTensor &b) {
  const auto &as = a.shape();
  const auto &bs = b.shape();
  std::vector<int64_t> cs;
  if (as.size() == 2)
    cs = {as[0], bs[1]};
  else
    cs = {as[0], as[1], bs[2]};
  HostTensor c(ElementType::F32, cs);

  memory::desc amd = plainDesc(as), bmd = plainDesc(bs), cmd = plainDesc(cs);
  dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(amd, bmd, cmd),
                                  ctx().engine);
  memory am = wrap(amd, a), bm = wrap(bmd, b), cm = wrap(cmd, c);
  dnnl::matmul(pd).execute(ctx().stream, {{DNNL_ARG_SRC, am},
                                          {DNNL_ARG_WEIGHTS, bm},
                                          {DNNL_ARG_DST, cm}});
  ctx().stream.wait();
  return c;
}

HostTensor matmulS8(const HostTensor &a, const HostTensor &b) {
  const auto &as = a.shape();
  const auto &bs = b.shape();
  std::vector<int64_t> cs = {as[0], bs[1]};
  HostTensor c(ElementType::I32, cs);
  memory::desc amd(toDims(as), dt::s8, tag::ab), bmd(toDims(bs), dt::s8, tag::ab),
      cmd(toDims(cs), dt::s32, tag::ab);
  dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(amd, bmd, cmd), ctx().engine);
  memory am = wrap(amd, a), bm = wrap(bmd, b), cm = wrap(cmd, c);
  dnnl::matmul(pd).execute(ctx().stream,
                           {{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bm}, {DNNL_ARG_DST, cm}});
  ctx().stream.wait();
  return c;
}

HostTensor conv2dS8(const HostTensor &input, const HostTensor &filter, const Window2D &w) {
  const auto &is = input.shape();
  const auto &fs = filter.shape();
  int64_t n = is[0], h = is[1], wd = is[2], c = is[3];
  int64_t kh = fs[0], kw = fs[1], f = fs[3];
  int64_t oh = outSize(h, kh, w.strideH, w.dilationH, w.padTop, w.padBottom);
  int64_t ow = outSize(wd, kw, w.strideW, w.dilationW, w.padLeft, w.padRight);
  HostTensor out(ElementType::I32, {n, oh, ow, f});
  memory::dims srcDims = {n, c, h, wd}, wDims = {f, c, kh, kw}, dstDims = {n, f, oh, ow};
  memory::desc userSrc(srcDims, dt::s8, tag::nhwc), userW(wDims, dt::s8, tag::hwio),
      userDst(dstDims, dt::s32, tag::nhwc);
  memory::desc anySrc(srcDims, dt::s8, tag::any), anyW(wDims, dt::s8, tag::any),
      anyDst(dstDims, dt::s32, tag::any);
  dnnl::convolution_forward::desc d(
      prop_kind::forward_inference, algorithm::convolution_direct, anySrc, anyW, anyDst,
      {w.strideH, w.strideW}, {w.dilationH - 1, w.dilationW - 1}, {w.padTop, w.padLeft},
      {w.padBottom, w.padRight});
  dnnl::convolution_forward::primitive_desc pd(d, ctx().engine);
  memory srcU = wrap(userSrc, input), wU = wrap(userW, filter), dstU = wrap(userDst, out);
  memory srcP = toPrimitive(srcU, pd.src_desc());
  memory wP = toPrimitive(wU, pd.weights_desc());
  memory dstP = pd.dst_desc() == userDst ? dstU : memory(pd.dst_desc(), ctx().engine);
  dnnl::convolution_forward(pd).execute(
      ctx().stream, {{DNNL_ARG_SRC, srcP}, {DNNL_ARG_WEIGHTS, wP}, {DNNL_ARG_DST, dstP}});
  fromPrimitive(dstP, dstU);
  ctx().stream.wait();
  return out;
}

HostTensor conv2d(const HostTensor &input, const HostTensor &filter,
                  ConvLayout layout, const Window2D &w) {
  const auto &is = input.shape();
  const auto &fs = filter.shape();
  bool nhwc = layout == ConvLayout::NHWC_HWCF;
  int64_t n = is[0];
  int64_t c = nhwc ? is[3] : is[1];
  int64_t h = nhwc ? is[1] : is[2];
  int64_t wd = nhwc ? is[2] : is[3];
  int64_t kh = nhwc ? fs[0] : fs[2];
  int64_t kw = nhwc ? fs[1] : fs[3];
  int64_t f = nhwc ? fs[3] : fs[0];
  int64_t oh = outSize(h, kh, w.strideH, w.dilationH, w.padTop, w.padBottom);
  int64_t ow = outSize(wd, kw, w.strideW, w.dilationW, w.padLeft, w.padRight);
  std::vector<int64_t> os =
      nhwc ? std::vector<int64_t>{n, oh, ow, f}
           : std::vector<int64_t>{n, f, oh, ow};
  HostTensor out(ElementType::F32, os);

  memory::dims srcDims = {n, c, h, wd}, wDims = {f, c, kh, kw},
               dstDims = {n, f, oh, ow};
  memory::desc userSrc(srcDims, dt::f32, nhwc ? tag::nhwc : tag::nchw);
  memory::desc userW(wDims, dt::f32, nhwc ? tag::hwio : tag::oihw);
  memory::desc userDst(dstDims, dt::f32, nhwc ? tag::nhwc : tag::nchw);

  memory::desc anySrc(srcDims, dt::f32, tag::any),
      anyW(wDims, dt::f32, tag::any), anyDst(dstDims, dt::f32, tag::any);
  dnnl::convolution_forward::desc d(
      prop_kind::forward_inference, algorithm::convolution_direct, anySrc,
      anyW, anyDst, {w.strideH, w.strideW},
      {w.dilationH - 1, w.dilationW - 1}, {w.padTop, w.padLeft},
      {w.padBottom, w.padRight});
  dnnl::convolution_forward::primitive_desc pd(d, ctx().engine);

  memory srcU = wrap(userSrc, input), wU = wrap(userW, filter),
         dstU = wrap(userDst, out);
  memory srcP = toPrimitive(srcU, pd.src_desc());
  memory wP = toPrimitive(wU, pd.weights_desc());
  memory dstP = pd.dst_desc() == userDst ? dstU
                                         : memory(pd.dst_desc(), ctx().engine);
  dnnl::convolution_forward(pd).execute(
      ctx().stream,
      {{DNNL_ARG_SRC, srcP}, {DNNL_ARG_WEIGHTS, wP}, {DNNL_ARG_DST, dstP}});
  fromPrimitive(dstP, dstU);
  ctx().stream.wait();
  return out;
}

HostTensor depthwiseConv2d(const HostTensor &input, const HostTensor &filter,
                           const Window2D &w, bool nchw) {
  const auto &is = input.shape();
  const auto &fs = filter.shape();
  int64_t n = is[0], h = nchw ? is[2] : is[1], wd = nchw ? is[3] : is[2],
          c = nchw ? is[1] : is[3];
  int64_t kh = nchw ? fs[1] : fs[0], kw = nchw ? fs[2] : fs[1];
  int64_t oh = outSize(h, kh, w.strideH, w.dilationH, w.padTop, w.padBottom);
  int64_t ow = outSize(wd, kw, w.strideW, w.dilationW, w.padLeft, w.padRight);
  HostTensor out(ElementType::F32, nchw ? std::vector<int64_t>{n, c, oh, ow}
                                        : std::vector<int64_t>{n, oh, ow, c});

  memory::dims srcDims = {n, c, h, wd}, dstDims = {n, c, oh, ow};
  // Grouped weights {G, O/G, I/G, KH, KW} = {C, 1, 1, KH, KW}. Over an HWC
  // filter buffer element [kh][kw][g] sits at kh*KW*C + kw*C + g; over a CHW
  // one, at g*KH*KW + kh*KW + kw.
  memory::dims wDims = {c, 1, 1, kh, kw};
  memory::desc userW(wDims, dt::f32,
                     nchw ? memory::dims{kh * kw, 1, 1, kw, 1}
                          : memory::dims{1, 1, 1, kw * c, c});
  memory::desc userSrc(srcDims, dt::f32, nchw ? tag::nchw : tag::nhwc);
  memory::desc userDst(dstDims, dt::f32, nchw ? tag::nchw : tag::nhwc);

  memory::desc anySrc(srcDims, dt::f32, tag::any),
      anyW(wDims, dt::f32, tag::any), anyDst(dstDims, dt::f32, tag::any);
  dnnl::convolution_forward::desc d(
      prop_kind::forward_inference, algorithm::convolution_direct, anySrc,
      anyW, anyDst, {w.strideH, w.strideW},
      {w.dilationH - 1, w.dilationW - 1}, {w.padTop, w.padLeft},
      {w.padBottom, w.padRight});
  dnnl::convolution_forward::primitive_desc pd(d, ctx().engine);

  memory srcU = wrap(userSrc, input), wU = wrap(userW, filter),
         dstU = wrap(userDst, out);
  memory srcP = toPrimitive(srcU, pd.src_desc());
  memory wP = toPrimitive(wU, pd.weights_desc());
  memory dstP = pd.dst_desc() == userDst ? dstU
                                         : memory(pd.dst_desc(), ctx().engine);
  dnnl::convolution_forward(pd).execute(
      ctx().stream,
      {{DNNL_ARG_SRC, srcP}, {DNNL_ARG_WEIGHTS, wP}, {DNNL_ARG_DST, dstP}});
  fromPrimitive(dstP, dstU);
  ctx().stream.wait();
  return out;
}

HostTensor pool2d(const HostTensor &input, PoolKind kind, int64_t kernelH,
                  int64_t kernelW, const Window2D &w) {
  const auto &is = input.shape();
  int64_t n = is[0], h = is[1], wd = is[2], c = is[3];
  int64_t oh = outSize(h, kernelH, w.strideH, 1, w.padTop, w.padBottom);
  int64_t ow = outSize(wd, kernelW, w.strideW, 1, w.padLeft, w.padRight);
  HostTensor out(ElementType::F32, {n, oh, ow, c});

  memory::desc srcMd({n, c, h, wd}, dt::f32, tag::nhwc);
  memory::desc dstMd({n, c, oh, ow}, dt::f32, tag::nhwc);
  algorithm alg = kind == PoolKind::Max ? algorithm::pooling_max
                                        : algorithm::pooling_avg_include_padding;
  dnnl::pooling_forward::desc d(prop_kind::forward_inference, alg, srcMd,
                                dstMd, {w.strideH, w.strideW},
                                {kernelH, kernelW}, {w.padTop, w.padLeft},
                                {w.padBottom, w.padRight});
  dnnl::pooling_forward::primitive_desc pd(d, ctx().engine);
  memory srcM = wrap(srcMd, input), dstM = wrap(dstMd, out);
  std::unordered_map<int, memory> args = {{DNNL_ARG_SRC, srcM},
                                          {DNNL_ARG_DST, dstM}};
  // Forward-inference max pooling needs no workspace, but ask anyway.
  if (pd.workspace_desc().get_size() != 0)
    args.insert({DNNL_ARG_WORKSPACE, memory(pd.workspace_desc(), ctx().engine)});
  dnnl::pooling_forward(pd).execute(ctx().stream, args);
  ctx().stream.wait();
  return out;
}

HostTensor eltwise(const HostTensor &src, Eltwise kind, float alpha,
                   float beta) {
  HostTensor out(ElementType::F32, src.shape());
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
  dnnl::eltwise_forward::desc d(prop_kind::forward_inference, alg, md, alpha,
                                beta);
  dnnl::eltwise_forward::primitive_desc pd(d, ctx().engine);
  memory s = wrap(md, src), o = wrap(md, out);
  dnnl::eltwise_forward(pd).execute(ctx().stream,
                                    {{DNNL_ARG_SRC, s}, {DNNL_ARG_DST, o}});
  ctx().stream.wait();
  return out;
}

HostTensor binary(const HostTensor &a, const HostTensor &b, Binary kind,
                  bool reluPostOp) {
  HostTensor out(ElementType::F32, a.shape());
  memory::desc amd = plainDesc(a.shape()), bmd = plainDesc(b.shape());
  algorithm alg =
      kind == Binary::Add ? algorithm::binary_add : algorithm::binary_mul;
  dnnl::binary::desc d(alg, amd, bmd, amd);
  dnnl::primitive_attr attr;
  if (reluPostOp) {
    dnnl::post_ops po;
    po.append_eltwise(1.0f, algorithm::eltwise_relu, 0.0f, 0.0f);
    attr.set_post_ops(po);
  }
  dnnl::binary::primitive_desc pd(d, attr, ctx().engine);
  memory am = wrap(amd, a), bm = wrap(bmd, b), om = wrap(amd, out);
  dnnl::binary(pd).execute(ctx().stream, {{DNNL_ARG_SRC_0, am},
                                          {DNNL_ARG_SRC_1, bm},
                                          {DNNL_ARG_DST, om}});
  ctx().stream.wait();
  return out;
}

HostTensor softmaxLastDim(const HostTensor &src) {
  HostTensor out(ElementType::F32, src.shape());
  memory::desc md = plainDesc(src.shape());
  dnnl::softmax_forward::desc d(prop_kind::forward_inference, md,
                                static_cast<int>(src.shape().size()) - 1);
  dnnl::softmax_forward::primitive_desc pd(d, ctx().engine);
  memory s = wrap(md, src), o = wrap(md, out);
  dnnl::softmax_forward(pd).execute(ctx().stream,
                                    {{DNNL_ARG_SRC, s}, {DNNL_ARG_DST, o}});
  ctx().stream.wait();
  return out;
}

} // namespace onednn
} // namespace e2e
} // namespace jitrun
