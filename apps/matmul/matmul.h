#pragma once
// Single-precision matrix multiplication C = A B, with A of M rows and K columns, B of K rows and N
// columns, all row-major: a(k, y) is A's row y, column k; b(x, k) is B's row k, column x; the
// output c(x, y) is C's row y, column x (N wide, M high).
//
// The sum over k runs in chunks of kMatmulChunk: the first min(K, kMatmulChunk) terms are summed
// with fused multiply-adds from zero, each further full chunk likewise, the chunks are added in
// order, and the terms past the last full chunk are fused into the result one by one. The C++
// reference sums in that same order, so results are bit-exact.

#include "dsl/dsl.h"

namespace dsl_apps {

/// The micro-tile the schedule keeps in registers: 4 AVX-512 vectors of C's row by 6 rows.
constexpr int kMatmulTileX = 64;
constexpr int kMatmulTileY = 6;
/// The chunk of k summed in registers before a tile is added into C. Each further chunk reads and
/// writes C once more; a chunk's panel of B (64 x kMatmulChunk floats, 256 KB) stays in L2.
/// (512 made 2048^3 3-5% slower: four passes over C's 16 MB instead of two; 2048 made it 25%
/// slower: its 512 KB panel no longer stayed in L2 with A's rows.)
constexpr int kMatmulChunk = 1024;

struct MatmulPipeline {
    dsl::Var x{"x"}, y{"y"}, z{"z"};
    dsl::Func b_first{"b_first"};    // B, as chunk 0 reads it (packed by the schedule)
    dsl::Func b_chunk{"b_chunk"};    // B, as the further chunks read it (likewise)
    dsl::Func first{"first_chunk"};  // chunk 0, summed per tile of C
    dsl::Func chunk{"chunk"};        // chunk z >= 1
    dsl::Func output{"matmul"};      // chunk 0, + chunks 1.., then the terms past them
    dsl::RDom ki;                    // k within the first chunk
    dsl::RDom kj;                    // k within a further chunk
    dsl::RDom ko;                    // the chunks after the first
    dsl::RDom kt;                    // the values of k past the last full chunk
};

/// The algorithm over `a` and `b` (float32, 2 dimensions, as above).
MatmulPipeline make_matmul(const dsl::ImageParam &a, const dsl::ImageParam &b);

/// The GPU schedule (any target with a GPU API): a thread per element of C, the sums in
/// registers, B read in place.
void schedule_matmul_gpu(MatmulPipeline &p);

/// The hand-written CPU schedule: tiles of kMatmulTileX x kMatmulTileY summed in registers,
/// columns of tiles in parallel. It needs C at least one tile large (M >= kMatmulTileY,
/// N >= kMatmulTileX); `matmul_fits_schedule` says whether it is.
void schedule_matmul(MatmulPipeline &p, const dsl::Target &target);
bool matmul_fits_schedule(int m, int n);

/// A `columns` x `rows` matrix of values uniform in [-1, 1), the same for the same seed.
dsl::Buffer<float> matmul_random_matrix(int columns, int rows, unsigned seed);

/// The plain C++ version, summing in the same order as the pipeline: one element, and all.
float matmul_reference_at(const dsl::Buffer<float> &a, const dsl::Buffer<float> &b, int x, int y);
dsl::Buffer<float> matmul_reference(const dsl::Buffer<float> &a, const dsl::Buffer<float> &b);

}  // namespace dsl_apps
