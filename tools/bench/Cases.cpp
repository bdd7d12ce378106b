//===- Cases.cpp - the kernels jitrun-bench compares with oneDNN ----------===//
//
// Each case is an MLIR module for jitrun, its seeded inputs, and the same
// computation as a prepared oneDNN primitive (testing/OneDnn.h, the library
// the e2e tests check jitrun against).
//
//===----------------------------------------------------------------------===//

#include "bench/Cases.h"

#include "llvm/ADT/StringExtras.h"

#include <array>
#include <cstring>
#include <random>
#include <sstream>

namespace jitrun {
namespace bench {

namespace onednn = testing::onednn;

namespace {

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

/// A matmul of `in` operands accumulated in `acc` from `zero`: i8 into i32
/// (the int8 matmul of quantized models), bf16 into f32 (products widened).
std::string typedMatmulModule(int64_t m, int64_t n, int64_t k, const std::string &in,
                              const std::string &acc, const std::string &zero) {
  std::string a = tensorType({m, k}, in.c_str()), b = tensorType({k, n}, in.c_str()),
              c = tensorType({m, n}, acc.c_str());
  return "func.func @main(%a: " + a + ", %b: " + b + ") -> " + c + " {\n" +
         "  %zero = arith.constant " + zero + " : " + acc + "\n  %e = tensor.empty() : " + c +
         "\n  %init = linalg.fill ins(%zero : " + acc + ") outs(%e : " + c + ") -> " + c +
         "\n  %r = linalg.matmul ins(%a, %b : " + a + ", " + b + ") outs(%init : " + c +
         ") -> " + c + "\n  return %r : " + c + "\n}\n";
}

/// `t`'s bytes as an MLIR hex literal (defined below).
std::string hexLiteral(const HostTensor &t);

/// i8 NHWC x i8 HWCF -> i32, unpadded, stride 1; the filter an input, or
/// the constant `weights`.
std::string int8ConvModule(const Shape &in, const Shape &flt, const Shape &out,
                           const HostTensor *weights = nullptr) {
  std::string it = tensorType(in, "i8"), ft = tensorType(flt, "i8"),
              ot = tensorType(out, "i32");
  std::string head = weights ? "func.func @main(%x: " + it + ") -> " + ot +
                                   " {\n  %w = arith.constant dense<" + hexLiteral(*weights) +
                                   "> : " + ft + "\n"
                             : "func.func @main(%x: " + it + ", %w: " + ft + ") -> " + ot +
                                   " {\n";
  return head + "  %zero = arith.constant 0 : i32\n  %e = tensor.empty() : " + ot +
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

/// A convolution of `kind` ("conv_2d_nhwc_hwcf", "conv_2d_nchw_fchw" or
/// "depthwise_conv_2d_nhwc_hwc"), stride 1, dilation 1, symmetric zero
/// padding `pad`; its filter the second argument, or the constant `weights`
/// (a layer's, which jitrun packs at compile time).
std::string convModule(const std::string &kind, const Shape &in,
                       const Shape &flt, const Shape &out, int64_t pad,
                       const HostTensor *weights = nullptr) {
  std::string it = tensorType(in), ft = tensorType(flt), ot = tensorType(out);
  std::string src = "%x", srcType = it, padText;
  if (pad) {
    Shape padded;
    padText = padOp(in, kind == "conv_2d_nchw_fchw" ? 2 : 1, pad, padded);
    src = "%padded";
    srcType = tensorType(padded);
  }
  const char *pair = "dense<[1, 1]> : tensor<2xi64>";
  std::string head = weights ? "func.func @main(%x: " + it + ") -> " + ot + " {\n  %w = arith.constant dense<" +
                                   hexLiteral(*weights) + "> : " + ft + "\n"
                             : "func.func @main(%x: " + it + ", %w: " + ft + ") -> " + ot + " {\n";
  return head +
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

/// Uniform [-1, 1] values rounded to bf16 (nearest even).
HostTensor randomBf16Tensor(const Shape &shape, uint32_t seed) {
  HostTensor t(ElementType::BF16, shape);
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  uint16_t *p = t.dataAs<uint16_t>();
  for (int64_t i = 0; i < t.numElements(); ++i) {
    float f = dist(gen);
    uint32_t u;
    std::memcpy(&u, &f, 4);
    u += 0x7fff + ((u >> 16) & 1);
    p[i] = static_cast<uint16_t>(u >> 16);
  }
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
// Kernels
//===----------------------------------------------------------------------===//



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
            c.ref = onednn::prepareMatmul(c.inputs[0], c.inputs[1]);
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
            c.ref = onednn::prepareMatmul(c.inputs[0], c.inputs[1], {&bias2d, &c.inputs[3], true});
            return c;
          }};
}

/// NHWC/HWCF or NCHW/FCHW convolution; oneDNN always runs it NHWC. With
/// `weightsInModel` (NHWC), the filter is a constant of the module, as a
/// layer's is: jitrun packs it at compile time, oneDNN reorders it at
/// prepare time; else both take it as an input.
CaseFactory convCase(bool nchw, int64_t h, int64_t wd, int64_t ch, int64_t f,
                     int64_t kh, int64_t pad, bool weightsInModel = false) {
  std::string name = std::string(nchw ? "conv_nchw_" : "conv_nhwc_") +
                     std::to_string(kh) + "x" + std::to_string(kh) + "_1x" +
                     std::to_string(h) + "x" + std::to_string(wd) + "x" +
                     std::to_string(ch) + "->" + std::to_string(f) +
                     (nchw ? "_vs_onednn_nhwc" : "") + (weightsInModel ? "_weights" : "");
  return {name, [=] {
            Case c;
            c.name = name;
            int64_t oh = h + 2 * pad - kh + 1, ow = wd + 2 * pad - kh + 1;
            c.work = 2.0 * oh * ow * f * ch * kh * kh;
            c.reduction = static_cast<double>(ch * kh * kh);
            HostTensor xNhwc = randomTensor({1, h, wd, ch}, 1);
            auto window = onednn::Window2D::padded(pad);
            if (!nchw) {
              HostTensor filter = randomTensor({kh, kh, ch, f}, 2);
              c.mlir = convModule("conv_2d_nhwc_hwcf", {1, h, wd, ch}, {kh, kh, ch, f},
                                  {1, oh, ow, f}, pad, weightsInModel ? &filter : nullptr);
              c.ref = onednn::prepareConv2d(xNhwc, filter, onednn::ConvLayout::NHWC_HWCF,
                                            window, onednn::Activations::Caller);
              c.inputs.push_back(xNhwc.clone());
              if (!weightsInModel)
                c.inputs.push_back(std::move(filter));
            } else {
              c.mlir = convModule("conv_2d_nchw_fchw", {1, ch, h, wd}, {f, ch, kh, kh},
                                  {1, f, oh, ow}, pad);
              c.inputs.push_back(permute4(xNhwc, {0, 3, 1, 2}));
              c.inputs.push_back(randomTensor({f, ch, kh, kh}, 2));
              // oneDNN runs the same convolution NHWC (its weights are
              // reordered to its own layout at prepare time either way).
              c.ref = onednn::prepareConv2d(xNhwc, permute4(c.inputs[1], {2, 3, 1, 0}),
                                            onednn::ConvLayout::NHWC_HWCF, window,
                                            onednn::Activations::Caller);
              c.toJitrunLayout = [](HostTensor nhwc) { return permute4(nhwc, {0, 3, 1, 2}); };
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
            c.ref = onednn::prepareDepthwiseConv2d(c.inputs[0], c.inputs[1],
                                                   onednn::Window2D::padded(pad),
                                                   /*nchw=*/false, onednn::Activations::Caller);
            return c;
          }};
}

/// int8 (i8 x i8 -> i32) matmul and convolutions; exact results expected.
/// A matmul of `kind` ("int8": i8 x i8 -> i32, exact; "bf16": bf16 x bf16
/// -> f32, against oneDNN's bf16 primitive and, in the same table, the f32
/// rows: AVX512_BF16 doubles the multiply-add rate).
CaseFactory typedMatmulCase(const std::string &kind, int64_t m, int64_t n, int64_t k) {
  std::string name = kind + "_matmul_" + std::to_string(m) + "x" + std::to_string(n) + "x" +
                     std::to_string(k);
  return {name, [=] {
            bool int8 = kind == "int8";
            Case c;
            c.name = name;
            c.integer = int8;
            c.work = 2.0 * m * n * k;
            c.reduction = static_cast<double>(k);
            c.mlir = int8 ? typedMatmulModule(m, n, k, "i8", "i32", "0")
                          : typedMatmulModule(m, n, k, "bf16", "f32", "0.0");
            for (auto [shape, seed] : {std::pair<Shape, uint32_t>{{m, k}, 1}, {{k, n}, 2}})
              c.inputs.push_back(int8 ? randomInt8Tensor(shape, seed)
                                      : randomBf16Tensor(shape, seed));
            c.ref = int8 ? onednn::prepareMatmulS8(c.inputs[0], c.inputs[1])
                         : onednn::prepareMatmulBf16(c.inputs[0], c.inputs[1]);
            return c;
          }};
}


/// `t`'s bytes as an MLIR hex literal (little endian, as held).
std::string hexLiteral(const HostTensor &t) {
  return "\"0x" +
         llvm::toHex(llvm::StringRef(static_cast<const char *>(t.data()), t.byteSize())) +
         "\"";
}

/// A matmul whose right operand is a constant of the model, as a layer's
/// weights are (jitrun packs them at compile time): f32, or bf16 x bf16 ->
/// f32 (AMX tiles on an AMX host, vdpbf16ps on other AVX512_BF16 hosts),
/// against oneDNN's matmul of the same type on the same values. The two
/// rows of one shape give bf16's rate against f32's.
CaseFactory weightsMatmulCase(const std::string &kind, int64_t m, int64_t n, int64_t k) {
  std::string name = kind + "_weights_matmul_" + std::to_string(m) + "x" + std::to_string(n) +
                     "x" + std::to_string(k);
  return {name, [=] {
            bool bf16 = kind == "bf16";
            const char *elem = bf16 ? "bf16" : "f32";
            Case c;
            c.name = name;
            c.work = 2.0 * m * n * k;
            c.reduction = static_cast<double>(k);
            HostTensor a = bf16 ? randomBf16Tensor({m, k}, 1) : randomTensor({m, k}, 1);
            HostTensor b = bf16 ? randomBf16Tensor({k, n}, 2) : randomTensor({k, n}, 2);
            std::string at = tensorType({m, k}, elem), bt = tensorType({k, n}, elem),
                        ct = tensorType({m, n}, "f32");
            c.mlir = "func.func @main(%a: " + at + ") -> " + ct + " {\n  %b = arith.constant dense<" +
                     hexLiteral(b) + "> : " + bt +
                     "\n  %zero = arith.constant 0.0 : f32\n  %e = tensor.empty() : " + ct +
                     "\n  %init = linalg.fill ins(%zero : f32) outs(%e : " + ct + ") -> " + ct +
                     "\n  %r = linalg.matmul ins(%a, %b : " + at + ", " + bt + ") outs(%init : " +
                     ct + ") -> " + ct + "\n  return %r : " + ct + "\n}\n";
            c.ref = bf16 ? onednn::prepareMatmulBf16(a, b) : onednn::prepareMatmul(a, b);
            c.inputs.push_back(std::move(a));
            return c;
          }};
}

/// With `weightsInModel`, the filter is a constant of the module, as a
/// quantized layer's is (on an AMX host, packed for tiles at compile time).
CaseFactory int8ConvCase(int64_t oh, int64_t ow, int64_t ch, int64_t f, int64_t kh,
                         bool weightsInModel = false) {
  std::string name = "int8_conv_nhwc_" + std::to_string(kh) + "x" + std::to_string(kh) +
                     "_1x" + std::to_string(oh) + "x" + std::to_string(ow) + "x" +
                     std::to_string(ch) + "->" + std::to_string(f) +
                     (weightsInModel ? "_weights" : "");
  return {name, [=] {
            Case c;
            c.name = name;
            c.integer = true;
            c.work = 2.0 * oh * ow * f * ch * kh * kh;
            Shape in = {1, oh + kh - 1, ow + kh - 1, ch}, flt = {kh, kh, ch, f};
            HostTensor x = randomInt8Tensor(in, 1), filter = randomInt8Tensor(flt, 2);
            c.mlir = int8ConvModule(in, flt, {1, oh, ow, f}, weightsInModel ? &filter : nullptr);
            c.ref = onednn::prepareConv2dS8(x, filter, onednn::Window2D{},
                                            onednn::Activations::Caller);
            c.inputs.push_back(std::move(x));
            if (!weightsInModel)
              c.inputs.push_back(std::move(filter));
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
            c.ref = onednn::prepareBinary(c.inputs[0], c.inputs[1], onednn::Binary::Add,
                                          {&c.inputs[2], /*relu=*/true});
            return c;
          }};
}

} // namespace

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
      // The same with the filter in the model, as a network's layers have it.
      convCase(false, 14, 14, 256, 256, 3, 1, true),
      convCase(false, 7, 7, 512, 512, 3, 1, true),
      convCase(false, 7, 7, 512, 2048, 1, 0, true),
      depthwiseCase(112, 112, 32, 3, 1),
      fusedMatmulCase(384, 768, 768),
      elementwiseChainCase(4096, 4096),
      typedMatmulCase("int8", 384, 768, 768),
      typedMatmulCase("bf16", 384, 768, 768),
      typedMatmulCase("bf16", 64, 128, 96),
      // Weights in the model: BERT-base's FFN (128 tokens).
      weightsMatmulCase("f32", 128, 3072, 768),
      weightsMatmulCase("bf16", 128, 3072, 768),
      int8ConvCase(56, 56, 64, 64, 3),
      int8ConvCase(56, 56, 64, 256, 1),
      // The filter in the model, as a quantized network's layers have it.
      int8ConvCase(56, 56, 64, 64, 3, true),
      int8ConvCase(14, 14, 256, 256, 3, true),
      int8ConvCase(7, 7, 512, 512, 3, true),
  };
}

HostTensor Case::expected() const {
  HostTensor r = ref->result();
  return toJitrunLayout ? toJitrunLayout(std::move(r)) : std::move(r);
}

} // namespace bench
} // namespace jitrun
