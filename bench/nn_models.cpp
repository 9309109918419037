// PP-OCRv4's two networks run whole through the ONNX front end (issue 32), one benchmark per
// input shape and thread count:
//
//   nn_model/dsl/detector/1x3x640x640/threads:T     (and 1x3x960x960)
//   nn_model/dsl/recogniser/1x3x48x320/threads:T    (and 8x3x48x320)
//
// The models are read from the build's models folder (scripts/fetch_models.sh, called by
// scripts/setup.sh); without them each benchmark is skipped with a message. A model is loaded
// (and compiled for its input shape, or found in the disk cache) once, outside the timing; the
// inputs are seeded values in [-1, 1). ONNX Runtime, the peer, runs under Node.js:
// bench/nn_vs_ort.sh times both sides in one run and prints the ratios.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "dsl/dsl.h"
#include "dsl/nn/Model.h"
#include "dsl/runtime/dsl_runtime.h"

namespace dsl_bench {

namespace {

struct NetworkShape {
    const char *network;    // detector or recogniser
    const char *file;       // in the models folder
    std::vector<int> dims;  // N, C, H, W
};

const std::vector<NetworkShape> &network_shapes() {
    static const std::vector<NetworkShape> shapes = {
        {"detector", "ch_PP-OCRv4_det_infer.onnx", {1, 3, 640, 640}},
        {"detector", "ch_PP-OCRv4_det_infer.onnx", {1, 3, 960, 960}},
        {"recogniser", "ch_PP-OCRv4_rec_infer.onnx", {1, 3, 48, 320}},
        {"recogniser", "ch_PP-OCRv4_rec_infer.onnx", {8, 3, 48, 320}},
    };
    return shapes;
}

/// Each model loaded once per process and input shape (loading compiles it for that shape, as
/// `dsl-onnx bench` does, or reads the disk cache). Both networks' input is "x".
dsl::nn::Model *model_at(const std::string &path, const std::vector<int> &dims) {
    static std::map<std::pair<std::string, std::vector<int>>, std::unique_ptr<dsl::nn::Model>>
        models;
    auto it = models.find({path, dims});
    if (it != models.end()) return it->second.get();
    if (std::FILE *f = std::fopen(path.c_str(), "rb")) {
        std::fclose(f);
    } else {
        return nullptr;
    }
    dsl::nn::ModelOptions options;
    options.shapes["x"] = std::vector<int64_t>(dims.begin(), dims.end());
    auto m = std::make_unique<dsl::nn::Model>(dsl::nn::Model::load(path, options));
    return models.emplace(std::make_pair(path, dims), std::move(m)).first->second.get();
}

void run_network(benchmark::State &state, const NetworkShape &s, int threads) {
    const std::string path = std::string(DSL_BENCH_MODELS_DIR) + "/" + s.file;
    dsl::nn::Model *model = model_at(path, s.dims);
    if (!model) {
        state.SkipWithError((path + " is missing: run scripts/setup.sh, which fetches the "
                                    "PP-OCRv4 models")
                                .c_str());
        return;
    }
    dsl::Buffer<float> x(s.dims[3], s.dims[2], s.dims[1], s.dims[0]);
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    x.for_each_value([&](float &v) { v = dist(rng); });
    const std::map<std::string, dsl::Buffer<>> inputs = {{model->inputs()[0].name, x}};
    dsl_set_num_threads(threads);
    model->run(inputs);  // the first run fills the pool of intermediate tensors
    for (auto _ : state)
        model->run(inputs);
    dsl_set_num_threads(0);
}

const bool registered = [] {
    for (const NetworkShape &s : network_shapes()) {
        std::string shape;
        for (int d : s.dims)
            shape += (shape.empty() ? "" : "x") + std::to_string(d);
        for (int threads : {1, 2}) {
            benchmark::RegisterBenchmark(
                ("nn_model/dsl/" + std::string(s.network) + "/" + shape +
                 "/threads:" + std::to_string(threads))
                    .c_str(),
                [&s, threads](benchmark::State &state) { run_network(state, s, threads); })
                ->UseRealTime()
                ->Unit(benchmark::kMillisecond);
        }
    }
    return true;
}();

}  // namespace

}  // namespace dsl_bench
