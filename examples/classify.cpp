//===- classify.cpp - load a model with the C++ API, run it, print top 5 --===//
//
// The smallest complete embedding of jitrun: a Runtime (worker threads), a
// Model compiled from a file, an xtensor input shaped as the model asks, one
// run, and the five largest values of the first result with their indices.
// Usage: classify MODEL.mlirbc [FILL=0.5] [THREADS=0]
//
//===----------------------------------------------------------------------===//

#include <jitrun/jitrun.hpp>

#include <xtensor/xbuilder.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <string>
#include <vector>

static std::string typeString(const jitrun::TensorDesc &d) {
  std::string s;
  for (int64_t dim : d.shape)
    s += std::to_string(dim) + "x";
  return s + jitrun_element_type_name(d.type);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s MODEL.mlirbc [FILL=0.5] [THREADS=0]\n", argv[0]);
    return 1;
  }
  float fill = argc > 2 ? std::strtof(argv[2], nullptr) : 0.5f;
  uint32_t threads = argc > 3 ? static_cast<uint32_t>(std::strtoul(argv[3], nullptr, 10)) : 0;
  try {
    jitrun::Runtime runtime(threads);
    jitrun::Model model = jitrun::Model::load(runtime, argv[1]);
    std::vector<jitrun::TensorDesc> inputs = model.inputs(), outputs = model.outputs();
    if (inputs.size() != 1 || inputs[0].type != JITRUN_F32 || outputs.empty() ||
        outputs[0].type != JITRUN_F32) {
      std::fprintf(stderr, "classify: expects one f32 input and an f32 first result\n");
      return 1;
    }
    std::vector<size_t> shape(inputs[0].shape.begin(), inputs[0].shape.end());
    xt::xarray<float> input = xt::ones<float>(shape) * fill;
    jitrun::Outputs results = model.runAlloc({input});
    auto scores = results.view<float>(0); // no copy: the runtime's buffer
    std::vector<size_t> order(scores.size());
    std::iota(order.begin(), order.end(), 0);
    size_t k = std::min<size_t>(5, order.size());
    std::partial_sort(order.begin(), order.begin() + k, order.end(),
                      [&](size_t a, size_t b) { return scores.data()[a] > scores.data()[b]; });
    std::printf("model: %s (@%s), input %s filled with %g, %u threads\n", argv[1],
                model.function().c_str(), typeString(inputs[0]).c_str(), fill,
                runtime.threads());
    std::printf("result 0: %s\ntop %zu:\n", typeString(outputs[0]).c_str(), k);
    for (size_t i = 0; i < k; ++i)
      std::printf("  index %zu: %.6g\n", order[i], scores.data()[order[i]]);
  } catch (const jitrun::Error &e) {
    std::fprintf(stderr, "classify: %s\n", e.what());
    return 1;
  }
  return 0;
}
