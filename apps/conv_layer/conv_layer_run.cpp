// Runs the three layers of apps/conv_layer on random data and checks them against the C++
// reference: a dense 3x3 layer, a dense 1x1 (pointwise) layer and a depthwise 3x3 layer.
//   conv_layer_run [N C W H] [--benchmark [runs]]
// N images of W x H pixels with C channels in and out (default 4 128 64 64). With --benchmark,
// times the default-schedule and the hand-written AOT libraries and realize() of the
// hand-written schedule, in GFLOP/s.
#include <cstdio>
#include <functional>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>

#include "app_util.h"
#include "conv_layer.h"
#include "conv_layer_1x1_aot.h"
#include "conv_layer_1x1_aot_naive.h"
#include "conv_layer_aot.h"
#include "conv_layer_aot_naive.h"
#include "depthwise_layer_aot.h"
#include "depthwise_layer_aot_naive.h"

using namespace dsl;
using namespace dsl_apps;

namespace {

using Library = int (*)(dsl_buffer_t *, dsl_buffer_t *, dsl_buffer_t *, dsl_buffer_t *);

struct Layer {
    const char *name;
    int kernel;
    bool depthwise;
    Library scheduled, naive;
};

}  // namespace

int main(int argc, char **argv) {
    return run_main("conv_layer_run", [&] {
        int size[4] = {4, 128, 64, 64};
        int sizes = 0, runs = 0;
        const char *names[4] = {"N", "C", "W", "H"};
        for (int i = 1; i < argc; i++) {
            std::string arg = argv[i];
            if (arg == "--benchmark") {
                runs = 10;
                if (i + 1 < argc) runs = parse_size(argv[++i], "of --benchmark (runs)", 4096);
            } else if (sizes < 4) {
                size[sizes] = parse_size(argv[i], names[sizes], 4096);
                sizes++;
            } else {
                throw std::runtime_error("usage: conv_layer_run [N C W H] [--benchmark [runs]]");
            }
        }
        if (sizes != 0 && sizes != 4)
            throw std::runtime_error("give all four sizes N C W H, or none (4 128 64 64)");
        const int n = size[0], channels = size[1], width = size[2], height = size[3];

        const Layer layers[] = {
            {"dense 3x3", 3, false, conv_layer_aot, conv_layer_aot_naive},
            {"dense 1x1", 1, false, conv_layer_1x1_aot, conv_layer_1x1_aot_naive},
            {"depthwise 3x3", 3, true, depthwise_layer_aot, depthwise_layer_aot_naive},
        };
        for (const Layer &layer : layers) {
            const ConvLayerShape shape{n,      channels,     channels,       width,
                                       height, layer.kernel, layer.depthwise};
            Buffer<float> input = conv_layer_random_input(shape, 1),
                          weights = conv_layer_random_weights(shape, 2),
                          bias = conv_layer_random_bias(shape, 3), out(channels, width, height, n);
            // The hand-written schedule needs at least one register tile; the generated
            // library says so with an error below that, so the default one runs instead.
            const bool fits = conv_layer_fits_schedule(layer.depthwise, channels, width, height);
            Library library = fits ? layer.scheduled : layer.naive;
            // The 1x1 layer over the images' rows joined, where the buffers allow it (they do).
            std::optional<JoinedRows> joined;
            if (layer.kernel == 1) joined = conv_layer_join_rows(input, out);
            const Buffer<float> &in_rows = joined ? joined->input : input,
                                &out_rows = joined ? joined->output : out;
            auto call = [&](Library f) {
                return f(in_rows.raw_buffer(), weights.raw_buffer(), bias.raw_buffer(),
                         out_rows.raw_buffer());
            };
            if (call(library) != 0)
                throw std::runtime_error(std::string("the ") + layer.name + " library failed");

            // Every element when that is quick, else a sample.
            const double terms =
                double(layer.kernel) * layer.kernel * (layer.depthwise ? 1 : channels);
            const double elements = double(channels) * width * height * n;
            const bool all = elements * terms <= 32.0 * 1024 * 1024;
            const int samples = all ? static_cast<int>(elements) : 4096;
            std::mt19937 rng(4);
            for (int i = 0; i < samples; i++) {
                int e = all ? i : static_cast<int>(rng() % static_cast<unsigned>(elements));
                int c = e % channels, x = e / channels % width, y = e / channels / width % height,
                    b = e / channels / width / height;
                float want = conv_layer_reference_at(input, weights, bias, layer.kernel,
                                                     layer.depthwise, c, x, y, b);
                if (out(c, x, y, b) != want) {
                    throw std::runtime_error(std::string(layer.name) + ": output(" +
                                             std::to_string(c) + ", " + std::to_string(x) + ", " +
                                             std::to_string(y) + ", " + std::to_string(b) +
                                             ") is " + std::to_string(out(c, x, y, b)) +
                                             ", the reference " + std::to_string(want));
                }
            }
            std::printf(
                "conv_layer_run: %s, %d image(s) of %dx%d, %d channels: matches the "
                "reference (%s)\n",
                layer.name, n, width, height, channels,
                all ? "every element" : "4096 sampled elements");
            if (runs == 0) continue;

            ImageParam pi(Float(32), 4, "input"), pw(Float(32), layer.depthwise ? 3 : 4, "weights"),
                pb(Float(32), 1, "bias");
            pi.set(in_rows);
            pw.set(weights);
            pb.set(bias);
            ConvLayerPipeline jit = make_conv_layer(pi, pw, pb, layer.kernel, layer.depthwise);
            if (fits) schedule_conv_layer(jit, Target::host());
            jit.output.compile_jit();
            int status = 0;
            auto gflops = [&](double ms) { return 2.0 * elements * terms / (ms * 1e-3) * 1e-9; };
            std::printf("  %s, best of %d runs:\n", layer.name, runs);
            // The default schedule is slow on the dense layers: one run is enough to see it.
            double naive_ms = best_time_ms(1, [&] { status |= call(layer.naive); });
            std::printf("    default schedule (AOT, 1 run) %10.3f ms  %7.1f GFLOP/s\n", naive_ms,
                        gflops(naive_ms));
            double scheduled_ms = best_time_ms(runs, [&] { status |= call(library); });
            double jit_ms = best_time_ms(runs, [&] { jit.output.realize(out_rows); });
            if (status != 0) throw std::runtime_error("a conv_layer library failed");
            std::printf("    hand-written schedule (AOT)  %10.3f ms  %7.1f GFLOP/s\n", scheduled_ms,
                        gflops(scheduled_ms));
            std::printf("    realize() (JIT)              %10.3f ms  %7.1f GFLOP/s\n", jit_ms,
                        gflops(jit_ms));
        }
        return 0;
    });
}
