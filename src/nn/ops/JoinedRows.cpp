// The block schedule of pointwise convolutions over joined rows (JoinedRows.h).
#include "nn/ops/JoinedRows.h"

#include "ir/IROperator.h"

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
/// group) of at least 32 input channels, whose rows are better joined: of a width not known
/// when compiling, or known and neither a multiple of a tile's 32 points nor narrower than 16
/// (vectors of channels then).
bool rows_joinable(const Tensor &x, const Window &w, int groups) {
    if (groups != 1 || !pointwise_2d(x, w)) return false;
    // Few input channels make a point's sums short: copying the block's results out then
    // costs more than the tiles' empty lanes (12 -> 96 channels at 160x160: 0.50 ms by rows,
    // 0.97 joined; in int8, 0.40 and 0.80).
    int64_t width = 0, channels = 0;
    if (!is_const(x.dim(1), &channels) || channels < 32) return false;
    return !is_const(x.dim(3), &width) || (width >= 16 && width % 32 != 0);
}

/// The output `out` (x, y, m, n) goes in parallel blocks of up to kBlock points by `tm`
/// channels (and images): rows shorter than kBlock in groups of about kBlock / W rows, longer
/// ones in pieces of kBlock points. In each block, `joined` (p, m, n), the convolution over the
/// block's points p = y * W + x as one axis, in register tiles of 2 vectors of points by the
/// `tm` channels (the caller's `tile`); then the block's output, along its rows, read back from
/// `joined` (8 KB of float: in L1). `joined` has a constant size (on the stack) and a constant
/// number of tiles; a block of fewer points (the last rows of a map, or 140 of rows of 20)
/// computes the rest from the input's last point, never stored. Blocks of 320 points ran
/// 384 -> 384 float channels at 20x20 in 0.94 ms against 0.71 (one thread), and rows of 40 or
/// 80 alike.
constexpr int kBlock = 160;

Tensor::Schedule joined_row_tiles(Func joined, Type acc, int tm, JoinedTile tile) {
    return [joined, acc, tm, tile](Func out, const Target &target) mutable {
        const int vec = std::max(1, target.natural_vector_size(acc));
        const int vw = 2;
        // The copy out of `joined` runs half vectors along the rows (8 floats with AVX-512),
        // whose last one may pass a row's end: the block's region includes that overshoot of
        // its last row, so the rows per block leave room for it (8 rows of 40 fill 320 points).
        const int copy_vec = std::max(1, vec / 2);
        const Expr width = max(out.output_buffer().dim(0).extent(), 1);
        const Expr piece = min(width, kBlock);
        const Expr rounded = ((piece + (copy_vec - 1)) / copy_vec) * copy_vec;
        const Expr rows = max((kBlock - rounded) / width + 1, 1);
        std::vector<Var> ov = out.args(), jv = joined.args();
        Var xb("xb"), xp("xp"), xo("xo"), xi("xi"), yo("yo"), yi("yi"), mo("mo"), mi("mi"),
            block("block"), task("task"), wo("wo"), wi("wi");
        // Pieces of a row: the whole row when it is shorter than a block (a piece's region is
        // its loop's whole range, so a piece of kBlock would reach past a short row's end).
        out.split(ov[0], xb, xp, piece, TailStrategy::GuardWithIf)
            .split(xp, xo, xi, copy_vec, TailStrategy::GuardWithIf)
            .split(ov[1], yo, yi, rows, TailStrategy::GuardWithIf)
            .split(ov[2], mo, mi, tm, TailStrategy::GuardWithIf)
            .reorder({xi, xo, yi, mi, xb, mo, yo, ov[3]})
            .vectorize(xi);
        // The pieces of a row are a serial loop of their own inside the parallel one (one
        // iteration for rows up to a block): fused into it, every vector of the copy tested
        // its piece against the row's end; alone, only the last piece does.
        out.fuse(mo, yo, block).fuse(block, ov[3], task).parallel(task);
        joined.compute_at(out, xb)
            .bound_extent(jv[0], kBlock)
            .bound_extent(jv[1], tm)
            .split(jv[0], wo, wi, vw * vec)
            .reorder({wi, jv[1], wo, jv[2]})
            .vectorize(wi, vec)
            .unroll(wi)
            .unroll(jv[1]);
        tile(joined, wo, vw, vec, tm);
    };
}

}  // namespace dsl::nn
