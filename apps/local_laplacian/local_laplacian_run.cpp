// Enhances the detail of a colour image file with the local Laplacian filter and writes the
// result (8 intensity levels, alpha 1, beta 1; environment variables LOCAL_LAPLACIAN_ALPHA in
// [0, 10] and LOCAL_LAPLACIAN_BETA in [0, 2] change the strengths).
//   local_laplacian_run <input image> <output.png> [--benchmark [runs]]
#include <cstdio>
#include <string>

#include "app_util.h"
#include "dsl/ImageIO.h"
#include "local_laplacian.h"
#include "local_laplacian_aot.h"
#include "local_laplacian_aot_naive.h"

using namespace dsl;
using namespace dsl_apps;

int main(int argc, char **argv) {
    Options options;
    if (!parse_options(argc, argv, "Local Laplacian filter (detail enhancement) of an image.",
                       options)) {
        return 1;
    }
    return run_main("local_laplacian_run", [&] {
        const int levels = 8;
        const float alpha = float_from_env("LOCAL_LAPLACIAN_ALPHA", 1.0f, 0.0f, 10.0f);
        const float beta = float_from_env("LOCAL_LAPLACIAN_BETA", 1.0f, 0.0f, 2.0f);
        Buffer<float> rgb = to_rgb_float(load_image(options.input), options.input);
        const int w = rgb.dim(0).extent(), h = rgb.dim(1).extent();
        Buffer<uint16_t> in(w, h, 3);
        in.for_each_element(
            [&](int x, int y, int c) { in(x, y, c) = uint16_t(rgb(x, y, c) * 65535.0f + 0.5f); });

        ImageParam input(UInt(16), 3, "input");
        Param<int> levels_param("levels", levels, 2, 32);
        Param<float> alpha_param("alpha", alpha), beta_param("beta", beta);
        input.set(in);
        LocalLaplacianPipeline scheduled =
            make_local_laplacian(input, levels_param, alpha_param, beta_param);
        schedule_local_laplacian(scheduled, Target::host());
        Buffer<uint16_t> out(w, h, 3);
        scheduled.output.realize(out);

        Buffer<uint8_t> out8(w, h, 3);
        out8.for_each_element(
            [&](int x, int y, int c) { out8(x, y, c) = uint8_t((out(x, y, c) + 128) / 257); });
        save_image(out8, options.output);
        std::printf("local_laplacian_run: wrote %s (%dx%d, alpha %g, beta %g)\n",
                    options.output.c_str(), w, h, alpha, beta);

        if (!options.benchmark) return 0;
        return run_benchmark(
            "local_laplacian", w, h, options.runs,
            [&] {
                return local_laplacian_aot_naive(in.raw_buffer(), levels, alpha, beta,
                                                 out.raw_buffer());
            },
            [&] {
                return local_laplacian_aot(in.raw_buffer(), levels, alpha, beta, out.raw_buffer());
            },
            [&] { scheduled.output.realize(out); }, "levels at root, serial");
    });
}
