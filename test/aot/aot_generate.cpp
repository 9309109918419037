// Writes the static libraries the AOT tests link: run at build time with the output folder as its
// argument. (Generators and the CMake helpers will replace this program.)
#include <cstdio>
#include <string>

#include "dsl/dsl.h"

using namespace dsl;

int main(int argc, char **argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s output-folder\n", argv[0]);
        return 2;
    }
    std::string dir = argv[1];
    try {
        // A 3x3 box blur of uint16 without a boundary condition: the input must cover one more
        // pixel on every side than the output (the bounds query says so), its rows dense.
        {
            ImageParam input(UInt(16), 2, "input");
            // Rows dense: the library has no version for other strides, and refuses them.
            input.dim(0).set_stride(1);
            Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
            Func blur_x("blur_x"), blur_y("blur_y");
            blur_x(x, y) = (input(x - 1, y) + input(x, y) + input(x + 1, y)) / 3;
            blur_y(x, y) = (blur_x(x, y - 1) + blur_x(x, y) + blur_x(x, y + 1)) / 3;
            blur_y.tile(x, y, xo, yo, xi, yi, 64, 16).vectorize(xi, 16).parallel(yo);
            blur_x.compute_at(blur_y, xo).vectorize(x, 16);
            blur_y.compile_to_static_library(dir + "/aot_blur", {input}, "aot_blur");
            // Cross-compiled: an AArch64 object (checked with llvm-objdump).
            blur_y.compile_to_object(dir + "/aot_blur_arm64.o", {input}, "aot_blur",
                                     Target("arm-64-linux"));
        }
        // Scalars of several types in an order of our choosing, and a Param range.
        {
            Param<float> gain("gain");
            Param<int32_t> offset("offset", 0, -100, 100);
            ImageParam image(UInt(8), 2, "image");
            Var x("x"), y("y");
            Func scaled("scaled");
            scaled(x, y) = cast<float>(image(x, y)) * gain + cast<float>(offset + x);
            scaled.vectorize(x, 8).parallel(y);
            scaled.compile_to_static_library(dir + "/aot_scale", {gain, image, offset},
                                             "aot_scale");
        }
        // An extern stage whose C function the test program defines: out(x) = in(-x) + offset
        // over a Func computed per tile, with the ImageParam's values added after it. The
        // stage is memoized: a second call with the same offset copies its tiles from the
        // runtime's cache.
        {
            ImageParam base(Int(32), 1, "base");
            Param<int32_t> offset("offset");
            Var x("x"), xo("xo"), xi("xi");
            Func squares("squares"), mirrored("mirrored"), total("total");
            squares(x) = x * x;
            mirrored.define_extern("aot_test_mirror", {squares, offset}, Int(32), {x});
            total(x) = mirrored(x) + base(x);
            total.split(x, xo, xi, 16).parallel(xo);
            squares.compute_at(total, xo);
            mirrored.compute_at(total, xo).memoize();
            total.compile_to_static_library(dir + "/aot_extern", {base, offset}, "aot_extern");
        }
        // An int8 matmul on the NPU: c(n, m) = sum_k a(k, m) * b(n, k), any sizes.
        {
            ImageParam a(Int(8), 2, "a"), b(Int(8), 2, "b");
            Var n("n"), m("m");
            RDom r(0, a.dim(0).extent(), "r");
            Func c("c");
            c(n, m) = 0;
            c(n, m) += cast<int32_t>(a(r, m)) * cast<int32_t>(b(n, r));
            c.update().npu_gemm();
            c.compile_to_static_library(dir + "/aot_npu_matmul", {a, b}, "aot_npu_matmul",
                                        Target("host-npu"));
        }
        // The blur on the GPU (OpenCL, and CUDA): two kernels and a device intermediate; the
        // output is left on the device for the caller to copy back.
        for (const char *api : {"opencl", "cuda"}) {
            ImageParam input(UInt(16), 2, "input");
            Var x("x"), y("y"), bx("bx"), by("by"), tx("tx"), ty("ty");
            Func blur_x("blur_x"), blur_y("blur_y");
            blur_x(x, y) = (input(x - 1, y) + input(x, y) + input(x + 1, y)) / 3;
            blur_y(x, y) = (blur_x(x, y - 1) + blur_x(x, y) + blur_x(x, y + 1)) / 3;
            blur_y.gpu_tile(x, y, bx, by, tx, ty, 16, 8);
            blur_x.compute_root().gpu_tile(x, y, bx, by, tx, ty, 32, 4);
            std::string name = std::string("aot_gpu_blur") + (api[0] == 'c' ? "_cuda" : "");
            blur_y.compile_to_static_library(dir + "/" + name, {input}, name,
                                             Target(std::string("host-") + api));
        }
    } catch (const Error &e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
    return 0;
}
