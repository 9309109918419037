#include "histogram_equalize.h"

#include <cstdint>
#include <vector>

namespace dsl_apps {

using namespace dsl;

HistogramEqualizePipeline make_histogram_equalize(const ImageParam &input) {
    HistogramEqualizePipeline p;
    Var x = p.x, y = p.y, i = p.i;
    p.r = RDom(input.min(0), input.width(), input.min(1), input.height(), "r");
    RDom r = p.r;
    p.hist(i) = 0;
    p.hist(cast<int32_t>(input(r.x, r.y))) += 1;
    RDom k(1, 255, "k");
    p.cdf(i) = p.hist(i);
    p.cdf(k) = p.cdf(k - 1) + p.cdf(k);
    Expr pixels = input.width() * input.height();
    p.lut(i) = cast<uint8_t>(p.cdf(i) * 255 / pixels);
    p.output(x, y) = p.lut(cast<int32_t>(input(x, y)));
    return p;
}

void schedule_histogram_equalize(HistogramEqualizePipeline &p, const Target &target) {
    // The histogram: rfactor gives each strip of 64 rows its own histogram (a partial one,
    // `hist_intm(bin, strip)`), computed in parallel over the strips, and the update sums the
    // partial histograms (256 bins x 40 strips). Each strip is one serial pass whose x loop is
    // unrolled by four (LLVM 19 does not runtime-unroll it by itself), which lets the loads of
    // pixels and bins run ahead of the increments. The Halide side of the benchmark gets the
    // same schedule. The initialisations and the table are vectorized; the scan is 255 serial
    // steps. The output, a gather from the table, runs as strips of rows in parallel with the x
    // loop vectorized.
    const int lanes = target.natural_vector_size<int32_t>();
    Var x = p.x, y = p.y, i = p.i, yo("yo"), yi("yi"), strip("strip");
    p.hist.compute_root().vectorize(i, lanes);
    RVar ryo("ryo"), ryi("ryi"), rxo("rxo"), rxi("rxi");
    p.hist.update().split(p.r.y, ryo, ryi, 64);
    Func partial = p.hist.update().rfactor(ryo, strip);
    partial.compute_root().vectorize(i, lanes);
    partial.update()
        .split(p.r.x, rxo, rxi, 4, TailStrategy::GuardWithIf)
        .unroll(rxi)
        .parallel(strip);
    p.cdf.compute_root();
    p.lut.compute_root().vectorize(i, lanes);
    p.output.split(y, yo, yi, 32).parallel(yo).vectorize(x, target.natural_vector_size<uint8_t>());
}

Buffer<uint8_t> histogram_equalize_reference(const Buffer<uint8_t> &input) {
    const int w = input.dim(0).extent(), h = input.dim(1).extent();
    const int x0 = input.dim(0).min(), y0 = input.dim(1).min();
    std::vector<int32_t> hist(256, 0);
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++)
            hist[input(x0 + x, y0 + y)]++;
    }
    std::vector<int32_t> cdf(256);
    int32_t running = 0;
    for (int v = 0; v < 256; v++) {
        running += hist[v];
        cdf[v] = running;
    }
    const int32_t pixels = w * h;
    std::vector<uint8_t> lut(256);
    for (int v = 0; v < 256; v++)
        lut[v] = static_cast<uint8_t>(cdf[v] * 255 / pixels);
    Buffer<uint8_t> out(w, h);
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++)
            out(x, y) = lut[input(x0 + x, y0 + y)];
    }
    return out;
}

}  // namespace dsl_apps
