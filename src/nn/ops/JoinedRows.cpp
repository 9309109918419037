// The block schedule of pointwise convolutions over joined rows (JoinedRows.h).
#include "nn/ops/JoinedRows.h"

#include "ir/IROperator.h"
#include "nn/ops/RegisterTiles.h"

namespace dsl::nn {

namespace {

/// Whether `w` over 2-D maps (x of rank 4) is pointwise: a 1x1 window, stride 1, no padding.
bool pointwise_2d(const Tensor &x, const Window &w) {
    if (x.rank() != 4 || w.kernel.size() != 2) return false;
    for (size_t i = 0; i < 2; i++) {
        int64_t begin = 1, end = 1;
        if (w.kernel[i] != 1 || (!w.strides.empty() && w.strides[i] != 1) ||
            (!w.dilations.empty() && w.dilations[i] != 1)) {
            return false;
        }
        if (!w.pads_begin.empty() && (!is_const(w.pads_begin[i], &begin) || begin != 0)) {
            return false;
        }
        if (!w.pads_end.empty() && (!is_const(w.pads_end[i], &end) || end != 0)) return false;
    }
    return true;
}

}  // namespace

/// Whether a convolution is pointwise over 2-D maps (a 1x1 window, stride 1, no padding, one
/// group) of at least 32 input channels over maps not known to be one row high, whose rows are
/// better joined: of a width not known when compiling, or known and neither a multiple of a
/// tile's 32 points nor narrower than 16 (vectors of channels then).
bool rows_joinable(const Tensor &x, const Window &w, int groups) {
    if (groups != 1 || !pointwise_2d(x, w)) return false;
    // Few input channels make a point's sums short, and the work of a task small beside what
    // it costs to start (the bounds of its tiles): on large maps rows then run faster (16 -> 32
    // channels at 320x320: 0.80 ms by rows, 1.24 joined, one thread), on small ones slower
    // (18 -> 96 at 80x80: 0.17 and 0.13).
    int64_t width = 0, channels = 0, height = 0;
    if (!is_const(x.dim(1), &channels) || channels < 32) return false;
    // A single row has nothing to join (and readers of a map known to be one row high index
    // it at row 0, not at the fused loop's row).
    if (is_const(x.dim(2), &height) && height == 1) return false;
    return !is_const(x.dim(3), &width) || (width >= 16 && width % 32 != 0);
}

/// The output `out` (x, y, m, n) over its points p = y * W + x as one axis, which a dense
/// output (its rows one after another, a constraint on its strides) stores at offset p of each
/// channel: register tiles of 2 vectors of points by `tm` channels (the caller's `tile`),
/// stored straight into the output across the ends of rows, in parallel blocks of
/// kTilesPerBlock tiles by a channel tile (and an image). The bounds of x and y are the map's,
/// so that the fused loop's coordinates (p % W, p / W) read the tile's point p back (bounds
/// inference then asks a tile of the accumulation, not the rows it crosses). Only the map's
/// last block tests its points against the map's end (the blocks before it are the parallel
/// loop's main part), and it runs only the tiles left. Before (a block of 160 points computed
/// into a buffer on the stack, then copied out along the rows): 42 -> 96 channels at 40x40 in
/// 0.086-0.10 ms at one thread and 0.09-0.12 at two; now 0.067 and 0.041-0.05.
constexpr int kTilesPerBlock = 5;

Tensor::Schedule joined_row_tiles(Expr width, Expr height, Type acc, int tm, bool fit_registers,
                                  JoinedTile tile) {
    return [width, height, acc, tm, fit_registers, tile](Func out, const Target &target) mutable {
        const int vec = std::max(1, target.natural_vector_size(acc));
        const int vw = 2;
        if (fit_registers) tm = tile_channels(target, vw, tm);
        OutputBuffer ob = out.output_buffer();
        ob.dim(0).set_stride(1);
        ob.dim(1).set_stride(width);
        const Expr row = joined_row(width);
        std::vector<Var> ov = out.args();
        Var p("p"), po("po"), pi("pi"), pb("pb"), pt("pt"), mo("mo"), mi("mi"), nm("nm"),
            task("task");
        // Register tiles in blocks of kTilesPerBlock, a block's channel tile one task; the last
        // tile of the map is guarded in the last block alone (the blocks before it are the
        // parallel loop's main part), which runs only the tiles the map has left.
        out.bound(ov[0], 0, row)
            .bound(ov[1], 0, height)
            .fuse(ov[0], ov[1], p)
            .split(p, po, pi, vw * vec, TailStrategy::GuardWithIf)
            .split(po, pb, pt, kTilesPerBlock, TailStrategy::GuardWithIf)
            .split(ov[2], mo, mi, tm, TailStrategy::GuardWithIf)
            .reorder({pi, mi, pt, ov[3], mo, pb})
            .vectorize(pi, vec)
            .unroll(pi)
            .unroll(mi);
        out.fuse(ov[3], mo, nm).fuse(nm, pb, task).parallel(task);
        tile(out, pt, vw, vec, tm);
    };
}

}  // namespace dsl::nn
