//===- ApiVsCli.cpp - the C API and the CLI compile and run one program --===//
//
// Usage: jitrun_api_vs_cli [--latency=N] JITRUN_BINARY SCRATCH_DIR MODEL...
// For each model: load it through the C API from the file and from memory,
// run it on seeded inputs, then run the `jitrun` CLI on the same inputs
// (as .npy files). Every statistic but the timings must be equal on all
// three paths, and every result bit-identical. Before the fix, the API's
// libjitrun.so hid its copies of MLIR's TypeIDs and fused differently
// (efficientnet_b0: 82 dispatches through the API, 73 through the CLI).
// Ends with "N passed, N failed". With --latency=N, each model's run latency
// is then measured both ways in the same process run, best of N runs after
// a warm-up: jitrun_model_run_alloc here, `jitrun --benchmark=N` there.
//
//===----------------------------------------------------------------------===//

#include <jitrun/jitrun.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::string readFile(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

const char *npyDescr(jitrun_element_type_t t) {
  switch (t) {
  case JITRUN_F32: return "<f4";
  case JITRUN_F64: return "<f8";
  case JITRUN_F16: return "<f2";
  case JITRUN_I8: return "|i1";
  case JITRUN_U8: return "|u1";
  case JITRUN_I16: return "<i2";
  case JITRUN_I32: return "<i4";
  case JITRUN_I64: return "<i8";
  case JITRUN_I1: return "|b1";
  default: return nullptr;
  }
}

bool writeNpy(const std::string &path, jitrun_element_type_t t, const std::vector<int64_t> &shape,
              const std::vector<uint8_t> &data) {
  const char *descr = npyDescr(t);
  if (!descr)
    return false;
  std::string header = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < shape.size(); ++i)
    header += std::to_string(shape[i]) + (shape.size() == 1 || i + 1 < shape.size() ? "," : "");
  header += "), }";
  while ((10 + header.size() + 1) % 64)
    header += ' ';
  header += '\n';
  std::ofstream f(path, std::ios::binary);
  f.write("\x93NUMPY\x01\x00", 8);
  uint16_t len = static_cast<uint16_t>(header.size());
  f.put(static_cast<char>(len & 0xff)).put(static_cast<char>(len >> 8));
  f << header;
  f.write(reinterpret_cast<const char *>(data.data()), static_cast<std::streamsize>(data.size()));
  return static_cast<bool>(f);
}

/// The data bytes of a .npy file written by jitrun (version 1.0).
std::string npyData(const std::string &path) {
  std::string s = readFile(path);
  if (s.size() < 10)
    return "";
  size_t len = static_cast<uint8_t>(s[8]) | (static_cast<uint8_t>(s[9]) << 8);
  return s.substr(10 + len);
}

/// Seeded values over the type's useful range.
std::vector<uint8_t> seeded(jitrun_element_type_t t, size_t bytes, uint32_t seed) {
  std::vector<uint8_t> out(bytes);
  size_t size = jitrun_element_size(t), n = bytes / size;
  uint32_t x = seed * 2654435761u + 7u;
  for (size_t i = 0; i < n; ++i) {
    x = x * 1664525u + 1013904223u;
    double u = static_cast<double>(x >> 8) / static_cast<double>(1u << 24);
    uint8_t *p = out.data() + i * size;
    if (t == JITRUN_F32) {
      float v = static_cast<float>(2 * u - 1);
      std::memcpy(p, &v, 4);
    } else if (t == JITRUN_F64) {
      double v = 2 * u - 1;
      std::memcpy(p, &v, 8);
    } else if (t == JITRUN_I1) {
      *p = u < 0.5;
    } else {
      int64_t v = static_cast<int64_t>(u * 256) - 128;
      std::memcpy(p, &v, size); // little-endian: the low bytes
    }
  }
  return out;
}

std::map<std::string, long long> cliStatistics(const std::string &json) {
  std::map<std::string, long long> m;
  size_t pos = 0;
  while ((pos = json.find('"', pos)) != std::string::npos) {
    size_t end = json.find('"', pos + 1);
    std::string key = json.substr(pos + 1, end - pos - 1);
    size_t colon = json.find(':', end);
    pos = end + 1;
    if (colon == std::string::npos || colon != end + 1)
      continue;
    const char *v = json.c_str() + colon + 1;
    while (*v == ' ')
      ++v;
    if ((*v >= '0' && *v <= '9') || *v == '-')
      m[key] = std::atoll(v);
  }
  return m;
}

std::map<std::string, long long> apiStatistics(jitrun_model_t m) {
  jitrun_statistics_t s;
  jitrun_model_statistics(m, &s);
  return {{"generic_before", s.generic_before}, {"generic_after", s.generic_after},
          {"root_ops", s.root_ops}, {"dispatch_regions", s.dispatch_regions},
          {"dispatches", s.dispatches}, {"executables", s.executables},
          {"fills", s.fills}, {"copies", s.copies}, {"workgroups", s.workgroups},
          {"transient_bytes", s.transient_bytes}, {"intermediate_bytes", s.intermediate_bytes},
          {"stack_bytes_max", s.stack_bytes_max}, {"vector_kernels", s.vector_kernels},
          {"scalar_kernels", s.scalar_kernels}, {"vnni_kernels", s.vnni_kernels},
          {"amx_kernels", s.amx_kernels}, {"generic_kernels", s.generic_kernels},
          {"mapped_constant_bytes", s.mapped_constant_bytes},
          {"reused_weight_bytes", s.reused_weight_bytes}};
}

int failures = 0;
unsigned latencyRuns = 0;
void fail(const std::string &model, const std::string &what) {
  std::printf("FAIL %s: %s\n", model.c_str(), what.c_str());
  ++failures;
}

bool check(const std::string &model, jitrun_runtime_t rt, const std::string &cli,
           const std::string &dir) {
  int before = failures;
  std::string bytes = readFile(model);
  jitrun_model_t fromFile = nullptr, fromBuffer = nullptr;
  jitrun_status_t s = jitrun_model_load_file(rt, model.c_str(), nullptr, &fromFile);
  if (s) {
    fail(model, std::string("load_file: ") + jitrun_status_message(s));
    jitrun_status_free(s);
    return false;
  }
  s = jitrun_model_load_buffer(rt, bytes.data(), bytes.size(), model.c_str(), nullptr, &fromBuffer);
  if (s) {
    fail(model, std::string("load_buffer: ") + jitrun_status_message(s));
    jitrun_status_free(s);
    jitrun_model_release(fromFile);
    return false;
  }
  // Inputs, seeded, as memory and as .npy files.
  std::vector<std::vector<int64_t>> shapes;
  std::vector<std::vector<uint8_t>> data;
  std::vector<jitrun_tensor_t> inputs;
  std::string flags;
  size_t n = jitrun_model_num_inputs(fromFile);
  for (size_t i = 0; i < n; ++i) {
    jitrun_tensor_desc_t d;
    jitrun_model_input(fromFile, i, &d);
    shapes.emplace_back(d.shape, d.shape + d.rank);
    data.push_back(seeded(d.type, d.byte_size, static_cast<uint32_t>(i + 1)));
    std::string path = dir + "/in" + std::to_string(i) + ".npy";
    if (!writeNpy(path, d.type, shapes.back(), data.back())) {
      fail(model, "cannot write input " + std::to_string(i));
      break;
    }
    flags += " --input=@" + path;
  }
  for (size_t i = 0; i < n; ++i) {
    jitrun_tensor_desc_t d;
    jitrun_model_input(fromFile, i, &d);
    inputs.push_back({d.type, d.rank, shapes[i].data(), data[i].data(), data[i].size()});
  }
  jitrun_outputs_t outFile = nullptr, outBuffer = nullptr;
  s = jitrun_model_run_alloc(fromFile, inputs.data(), inputs.size(), &outFile);
  if (s) {
    fail(model, std::string("run: ") + jitrun_status_message(s));
    jitrun_status_free(s);
  }
  s = jitrun_model_run_alloc(fromBuffer, inputs.data(), inputs.size(), &outBuffer);
  if (s) {
    fail(model, std::string("run (buffer): ") + jitrun_status_message(s));
    jitrun_status_free(s);
  }
  size_t numOut = jitrun_outputs_count(outFile);
  for (size_t i = 0; i < numOut; ++i)
    flags += " --output=@" + dir + "/out" + std::to_string(i) + ".npy";
  std::string stats = dir + "/stats.json";
  std::string cmd = cli + " '" + model + "'" + flags +
                    " --dump-statistics=json --dump-statistics-file=" + stats + " > " + dir +
                    "/cli.log 2>&1";
  if (std::system(cmd.c_str()) != 0)
    fail(model, "the CLI failed: " + readFile(dir + "/cli.log"));
  auto cliStats = cliStatistics(readFile(stats));
  auto fileStats = apiStatistics(fromFile), bufferStats = apiStatistics(fromBuffer);
  for (auto &[key, value] : fileStats) {
    if (!cliStats.count(key) || cliStats[key] != value)
      fail(model, key + ": API " + std::to_string(value) + ", CLI " +
                      (cliStats.count(key) ? std::to_string(cliStats[key]) : "missing"));
    if (bufferStats[key] != value)
      fail(model, key + ": API file " + std::to_string(value) + ", API buffer " +
                      std::to_string(bufferStats[key]));
  }
  for (size_t i = 0; i < numOut && outBuffer; ++i) {
    jitrun_tensor_t a, b;
    jitrun_outputs_get(outFile, i, &a);
    jitrun_outputs_get(outBuffer, i, &b);
    std::string cliData = npyData(dir + "/out" + std::to_string(i) + ".npy");
    std::string apiData(static_cast<const char *>(a.data), a.byte_size);
    if (cliData != apiData)
      fail(model, "result " + std::to_string(i) + " differs between the API and the CLI");
    if (a.byte_size != b.byte_size || std::memcmp(a.data, b.data, a.byte_size) != 0)
      fail(model, "result " + std::to_string(i) + " differs between file and buffer loads");
  }
  // Timed with the one model it times loaded (a second copy of the weights
  // in the process cost the API runs 15-25% on the de-splatted resnet18).
  jitrun_outputs_free(outBuffer);
  outBuffer = nullptr;
  jitrun_model_release(fromBuffer);
  fromBuffer = nullptr;
  if (latencyRuns > 0 && failures == before) {
    // Three rounds, API then CLI, each best of latencyRuns after a warm-up:
    // runs of a fraction of a millisecond on a shared machine vary by 20%
    // from one batch to the next; the best of three batches does not.
    double apiMs = 1e300, cliMs = 1e300;
    std::string log = dir + "/latency.log";
    for (int round = 0; round < 3 && failures == before; ++round) {
      for (unsigned r = 0; r <= latencyRuns; ++r) { // run 0 warms up
        jitrun_outputs_t out = nullptr;
        auto start = std::chrono::steady_clock::now();
        jitrun_status_t st =
            jitrun_model_run_alloc(fromFile, inputs.data(), inputs.size(), &out);
        double ms = std::chrono::duration<double, std::milli>(
                        std::chrono::steady_clock::now() - start).count();
        if (st) {
          fail(model, std::string("latency run: ") + jitrun_status_message(st));
          jitrun_status_free(st);
          break;
        }
        jitrun_outputs_free(out);
        if (r > 0)
          apiMs = std::min(apiMs, ms);
      }
      std::string bench = cli + " '" + model + "'" + flags.substr(0, flags.find(" --output")) +
                          " --benchmark=" + std::to_string(latencyRuns) + " > " + log + " 2>&1";
      std::string text = std::system(bench.c_str()) == 0 ? readFile(log) : "";
      size_t at = text.find("latency_ms min=");
      if (at == std::string::npos) {
        fail(model, "no latency from the CLI: " + readFile(log));
        break;
      }
      cliMs = std::min(cliMs, std::atof(text.c_str() + at + std::strlen("latency_ms min=")));
    }
    if (failures == before)
      std::printf("latency %s: API %.3f ms, CLI %.3f ms (best of 3 x %u), API/CLI %.3f\n",
                  model.c_str(), apiMs, cliMs, latencyRuns, apiMs / cliMs);
  }
  jitrun_outputs_free(outFile);
  jitrun_outputs_free(outBuffer);
  jitrun_model_release(fromFile);
  jitrun_model_release(fromBuffer);
  std::printf("%s %s: %lld dispatches, %zu results\n", failures == before ? "ok  " : "FAIL",
              model.c_str(), fileStats["dispatches"], numOut);
  std::fflush(stdout);
  return failures == before;
}

} // namespace

int main(int argc, char **argv) {
  int first = 1;
  if (argc > 1 && std::strncmp(argv[1], "--latency=", 10) == 0) {
    latencyRuns = static_cast<unsigned>(std::strtoul(argv[1] + 10, nullptr, 10));
    first = 2;
  }
  if (argc < first + 3) {
    std::fprintf(stderr, "usage: %s [--latency=N] JITRUN SCRATCH_DIR MODEL...\n", argv[0]);
    return 2;
  }
  jitrun_runtime_t rt = nullptr;
  if (jitrun_status_t s = jitrun_runtime_create(0, &rt)) {
    std::fprintf(stderr, "%s\n", jitrun_status_message(s));
    return 2;
  }
  int passed = 0, failed = 0;
  for (int i = first + 2; i < argc; ++i)
    (check(argv[i], rt, argv[first], argv[first + 1]) ? passed : failed)++;
  jitrun_runtime_release(rt);
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
