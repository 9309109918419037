#include "matmul.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace dsl_apps {

using namespace dsl;

MatmulPipeline make_matmul(const ImageParam &a, const ImageParam &b) {
    MatmulPipeline p;
    Var x = p.x, y = p.y, z = p.z;
    Expr k_extent = a.extent(0);
    // Full chunks of kMatmulChunk; the first chunk may be shorter (K < kMatmulChunk).
    Expr chunks = k_extent / kMatmulChunk;
    // Element k of A's row y and of B's column x (the buffers may start anywhere).
    auto a_at = [&](const Expr &k) { return a(a.min(0) + k, y); };
    Var k("k");
    p.b_first(x, k) = b(x, b.min(1) + k);
    p.b_chunk(x, k) = b(x, b.min(1) + k);

    p.ki = RDom(0, min(k_extent, kMatmulChunk), "ki");
    RDom ki = p.ki;
    p.first(x, y) = 0.0f;
    p.first(x, y) = fma(a_at(ki), p.b_first(x, ki), p.first(x, y));
    p.kj = RDom(0, kMatmulChunk, "kj");
    RDom kj = p.kj;
    p.chunk(x, y, z) = 0.0f;
    p.chunk(x, y, z) =
        fma(a_at(z * kMatmulChunk + kj), p.b_chunk(x, z * kMatmulChunk + kj), p.chunk(x, y, z));

    // Chunks 1 .. chunks - 1. With fewer than two chunks the range is empty, and its last value
    // (chunks - 1) keeps bounds inference from asking for columns of A past K.
    p.ko = RDom(1, chunks - 1, "ko");
    p.kt = RDom(max(chunks, 1) * kMatmulChunk, k_extent - max(chunks, 1) * kMatmulChunk, "kt");
    RDom ko = p.ko, kt = p.kt;
    p.output(x, y) = p.first(x, y);
    p.output(x, y) += p.chunk(x, y, ko);
    p.output(x, y) = fma(a_at(kt), b(x, b.min(1) + kt), p.output(x, y));
    return p;
}

bool matmul_fits_schedule(int m, int n) {
    return m >= kMatmulTileY && n >= kMatmulTileX;
}

void schedule_matmul(MatmulPipeline &p, const Target &target) {
    // Each tile of C (kMatmulTileX x kMatmulTileY, e.g. 4 vectors of 16 floats by 6 rows: 24
    // AVX-512 registers) is summed in registers over a chunk of k: for each k, one load of B's
    // row per vector, one broadcast of A per row, and a fused multiply-add per register. Tiles go
    // down a column of C (B's columns stay in cache, A's rows stream), columns in parallel.
    // bound_extent makes each tile's region constant where the edges clamp it, so that its loops
    // unroll and it lives in registers (the last tile of a row or column overlaps the one before).
    const int vec = target.natural_vector_size<float>();
    const int tx = kMatmulTileX, ty = kMatmulTileY;
    Var x = p.x, y = p.y, xo("xo"), yo("yo"), xi("xi"), yi("yi");
    auto per_tile = [&](Func &f, const RDom &k) {
        f.bound_extent(x, tx).bound_extent(y, ty).vectorize(x, vec).unroll(x).unroll(y);
        f.update().reorder(x, y, k).vectorize(x, vec).unroll(x).unroll(y);
    };
    p.output.tile(x, y, xo, yo, xi, yi, tx, ty, TailStrategy::ShiftInwards)
        .reorder(xi, yi, yo, xo)
        .vectorize(xi, vec)
        .unroll(xi)
        .unroll(yi)
        .parallel(xo);
    p.first.compute_at(p.output, yo);
    // The column of B that a column of tiles reads, copied into a dense panel (64 floats per k)
    // once per column: the tiles then read it in order instead of one row of B after another.
    p.b_first.compute_at(p.output, xo).vectorize(x, vec);
    per_tile(p.first, p.ki);
    // Chunks 1.. are added tile by tile; the chunk loop is outermost, so that a chunk of B's
    // columns stays in cache for a whole column of tiles.
    p.output.update(0)
        .tile(x, y, xo, yo, xi, yi, tx, ty, TailStrategy::GuardWithIf)
        .reorder(xi, yi, yo, xo, p.ko)
        .vectorize(xi, vec)
        .unroll(xi)
        .unroll(yi)
        .parallel(xo);
    p.chunk.compute_at(p.output, yo).bound_extent(p.z, 1);
    p.b_chunk.compute_at(p.output, xo).vectorize(x, vec);
    per_tile(p.chunk, p.kj);
    // The terms past the last full chunk (none when the chunk divides K), straight into C.
    p.output.update(1).reorder(x, p.kt, y).vectorize(x, vec).parallel(y);
}

void schedule_matmul_gpu(MatmulPipeline &p) {
    // A thread per element of C, in blocks of 16 x 16, each stage its own kernel: the first
    // chunk's sum (in a register of the thread, B read in place), then each further chunk's sum
    // added (computed per chunk in the thread), then the terms past the last chunk. The same
    // fused multiply-adds in the same order as the CPU's. (bench/gpu.cpp's register-blocked
    // products through shared memory are faster: this schedule is the app's algorithm as it
    // is.)
    Var x = p.x, y = p.y;
    Var bx("bx"), by("by"), tx("tx"), ty("ty"), bx1("bx1"), by1("by1"), tx1("tx1"), ty1("ty1"),
        bx2("bx2"), by2("by2"), tx2("tx2"), ty2("ty2");
    p.output.gpu_tile(x, y, bx, by, tx, ty, 16, 16);
    p.first.compute_at(p.output, tx);
    p.output.update(0).gpu_tile(x, y, bx1, by1, tx1, ty1, 16, 16);
    p.chunk.compute_at(p.output, p.ko);
    p.output.update(1).gpu_tile(x, y, bx2, by2, tx2, ty2, 16, 16);
}

Buffer<float> matmul_random_matrix(int columns, int rows, unsigned seed) {
    Buffer<float> m(columns, rows);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    m.for_each_element([&](int x, int y) { m(x, y) = value(rng); });
    return m;
}

float matmul_reference_at(const Buffer<float> &a, const Buffer<float> &b, int x, int y) {
    const int k_extent = a.dim(0).extent();
    const int ka = a.dim(0).min(), ya = a.dim(1).min(), xb = b.dim(0).min(), kb = b.dim(1).min();
    const int chunks = k_extent / kMatmulChunk;
    auto sum = [&](int from, int to, float acc) {
        for (int k = from; k < to; k++)
            acc = std::fmaf(a(ka + k, ya + y), b(xb + x, kb + k), acc);
        return acc;
    };
    float total = sum(0, std::min(k_extent, kMatmulChunk), 0.0f);
    for (int z = 1; z < chunks; z++)
        total += sum(z * kMatmulChunk, (z + 1) * kMatmulChunk, 0.0f);
    return sum(std::max(chunks, 1) * kMatmulChunk, k_extent, total);
}

Buffer<float> matmul_reference(const Buffer<float> &a, const Buffer<float> &b) {
    const int m = a.dim(1).extent(), n = b.dim(0).extent();
    Buffer<float> c(n, m);
    for (int y = 0; y < m; y++) {
        for (int x = 0; x < n; x++)
            c(x, y) = matmul_reference_at(a, b, x, y);
    }
    return c;
}

}  // namespace dsl_apps
