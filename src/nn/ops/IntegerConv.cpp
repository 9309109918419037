// The 2-D convolution of 8-bit integers accumulated in int32 (ONNX's ConvInteger, and the sums
// of QLinearConv), written for the CPU's dot-product instructions, as integer_matmul is.
//
// With x' = x as unsigned bytes (an int8 x shifted by +128) and w' = w as signed bytes (a uint8
// w shifted by -128), and the padding read as x's zero point zx' (so that its terms vanish):
//   sum (x - zx)(w - zw) = sum x' w' - zw' S - zx' sum w' + C KH KW zx' zw'
// where S is the sum of x' over the window. The first sum runs on vpdpbusd: x' is packed four
// channels at a time per pixel, padded, its columns split by phase for strides (N x C/4 x H' x
// stride x W'/stride x 4: four channels' bytes side by side, a vector of 16 output columns
// reading 64 consecutive bytes for every tap), and w' (a
// constant) is packed on the host as C/4 x KH x KW x M' x 4, each output channel's four bytes
// one 32-bit broadcast. Tiles of two vectors of output columns by twelve output channels are
// summed in registers, as the float convolution's are. A pointwise window over 32 or more
// channels runs over joined rows (JoinedRows.h) instead: x' packed per point of the map
// (N x C/4 x H*W), tiles of two vectors of points by a channel tile that divides M.
#include <functional>
#include <type_traits>

#include "dsl/InlineReductions.h"
#include "dsl/nn/Quantize.h"
#include "ir/Error.h"
#include "ir/IROperator.h"
#include "nn/ops/JoinedRows.h"
#include "nn/ops/Quantized.h"

namespace dsl::nn {

namespace {

constexpr int kChannelTile = 12;

/// w' packed on the host, zero past M and past C, and the sums of its output channels.
struct PackedConvWeights {
    Tensor packed, sums;
};

template <typename T>
PackedConvWeights pack_conv_weights(const Buffer<T> &w, int multiple) {
    // Buffer dimensions: kx, ky, c, m (innermost first).
    const int kw = w.dim(0).extent(), kh = w.dim(1).extent(), c = w.dim(2).extent(),
              m = w.dim(3).extent();
    const int blocks = (c + 3) / 4, padded = (m + multiple - 1) / multiple * multiple;
    Buffer<int8_t> packed(4, padded, kw, kh, blocks);
    Buffer<int32_t> sums(m);
    packed.fill(0);
    sums.fill(0);
    for (int o = 0; o < m; o++)
        for (int ch = 0; ch < c; ch++)
            for (int y = 0; y < kh; y++)
                for (int x = 0; x < kw; x++) {
                    int v = int(w(w.dim(0).min() + x, w.dim(1).min() + y, w.dim(2).min() + ch,
                                  w.dim(3).min() + o)) -
                            (std::is_unsigned<T>::value ? 128 : 0);
                    packed(ch % 4, o, x, y, ch / 4) = static_cast<int8_t>(v);
                    sums(o) += v;
                }
    return {Tensor(Buffer<>(packed), unique_name("iconv_packed")),
            Tensor(Buffer<>(sums), unique_name("iconv_weight_sums"))};
}

PackedConvWeights pack_conv_weights(const Tensor &w, int multiple) {
    return w.type().is_uint() ? pack_conv_weights(Buffer<uint8_t>(w.data()), multiple)
                              : pack_conv_weights(Buffer<int8_t>(w.data()), multiple);
}

/// One 32-bit word of four bytes: byte(t) in byte t.
Expr packed_word(const std::function<Expr(int)> &byte) {
    Expr word = make_const(UInt(32), 0);
    for (int t = 0; t < 4; t++)
        word = word | (cast<uint32_t>(byte(t)) << make_const(UInt(32), 8 * t));
    return word;
}

/// Byte t of a packed word.
Expr word_byte(const Expr &word, const Expr &t) {
    return cast<uint8_t>(word >> (cast<uint32_t>(t) * make_const(UInt(32), 8)));
}

/// x' of an element of x: an int8 x shifted into unsigned bytes.
Expr unsigned_byte(const Expr &v) {
    return v.type().is_int() ? cast<uint8_t>(cast<int16_t>(v) + 128) : v;
}

/// The channel tile of a pointwise convolution of `m` output channels: from 8 to 14 channels
/// (two vectors of points by 14 channels fill 28 of AVX-512's 32 registers), the one that pads
/// m least, the larger among equals. 42 channels go in three tiles of 14, 18 in two of 9, where
/// tiles of 12 computed 48 and 24.
int pointwise_channel_tile(int m) {
    if (m <= 14) return std::max(m, 1);
    int best = kChannelTile, best_padded = (m + best - 1) / best * best;
    for (int t = 14; t >= 8; t--) {
        const int padded = (m + t - 1) / t * t;
        if (padded < best_padded) best = t, best_padded = padded;
    }
    return best;
}

}  // namespace

bool zero_constant(const Tensor &z) {
    if (!z.defined()) return true;
    const Buffer<> &b = z.data();
    if (!b.defined()) return false;
    const auto *p = static_cast<const uint8_t *>(b.data());
    for (size_t i = 0; i < b.size_in_bytes(); i++) {
        if (p[i] != 0) return false;
    }
    return true;
}

bool integer_conv_applies(const Tensor &x, const Tensor &w, const Tensor &x_zero_point,
                          const Window &window, int groups) {
    int64_t one = 0;
    bool x_zero_scalar =
        !x_zero_point.defined() || x_zero_point.rank() == 0 ||
        (x_zero_point.rank() == 1 && is_const(x_zero_point.dim(0), &one) && one == 1);
    bool unit_dilation = true;
    for (int d : window.dilations)
        unit_dilation &= d == 1;
    return x.rank() == 4 && w.rank() == 4 && groups == 1 && is_byte(x.type()) &&
           is_byte(w.type()) && w.data().defined() && x_zero_scalar && unit_dilation;
}

namespace {

/// What integer_conv's two forms share: the operands, x's zero point as a byte of x', and the
/// correction of the vpdpbusd sum `acc` at output channel m, whose window sum of x' is `sums`
/// (the header's formula; symmetric weights need no window sums).
struct IntegerConvTerms {
    const Tensor &x, &w, &w_zero_point, &bias;
    int channels, outputs, kh, kw;
    bool symmetric;
    Expr zx;

    Expr corrected(const Expr &acc, const Expr &m, const std::function<Expr()> &sums,
                   const PackedConvWeights &pw) const {
        Expr zw = zero_point_at(w_zero_point, m) - (w.type().is_uint() ? 128 : 0);
        const int64_t terms = int64_t(channels) * kh * kw;
        Expr v = acc - (symmetric ? Expr(0) : zw * sums()) - zx * pw.sums({m}) +
                 make_const(Int(32), terms) * zx * zw;
        if (bias.defined()) v = v + cast<int32_t>(bias({m}));
        return v;
    }
};

/// The update of an int8 accumulation tile `f` over `r` (r[0] the four bytes of a word, then
/// the sum's other dimensions), `points` its dimension of output points and `channel` its
/// dimension of output channels, computed at `loop` of `consumer`: `vw` vectors of `vec` points
/// by `tm` channels in registers, each vpdpbusd a vector of 4 x vec bytes.
void integer_tile(Func f, const RDom &r, Func consumer, const Var &loop, int points, int channel,
                  int vw, int vec, int tm) {
    std::vector<Var> fv = f.args();
    f.compute_at(consumer, loop)
        .bound_extent(fv[points], vw * vec)
        .bound_extent(fv[channel], tm)
        .vectorize(fv[points], vec)
        .unroll(fv[points])
        .unroll(fv[channel]);
    Var co("co"), ci("ci");
    std::vector<VarOrRVar> order{r[0], ci, co, fv[channel]};
    for (int d = 1; d < r.dimensions(); d++)
        order.push_back(r[d]);
    f.update()
        .atomic()
        .split(fv[points], co, ci, vec)
        .reorder(order)
        .vectorize(r[0])
        .vectorize(ci)
        .unroll(co)
        .unroll(fv[channel]);
}

/// integer_conv of a pointwise window over joined rows (JoinedRows.h): x' packed over the H * W
/// points of each image (n, channel block, point), a vector of points reading four dense rows of
/// bytes whatever the width (no tail per row), the sums in tiles of points by a channel tile
/// (pointwise_channel_tile) stored straight into the output (JoinedRows.cpp).
Tensor pointwise_integer_conv(const IntegerConvTerms &k) {
    const Tensor &x = k.x;
    const Expr n = x.dim(0), height = x.dim(2), width = x.dim(3);
    const Expr points = height * width, row = joined_row(width);
    const int blocks = (k.channels + 3) / 4;
    const int tm = pointwise_channel_tile(k.outputs);
    // The points of a block past the map's last one (never stored) read as x's zero point,
    // from the last point's address.
    Tensor packed_x =
        compute(unique_name("iconv_points"), {n, Expr(blocks), points}, [&](const Index &i) {
            Expr p = clamp(i[2], 0, points - 1);
            Expr inside = likely(i[2] < points);
            return packed_word([&](int t) {
                Expr c = i[1] * 4 + t;
                Expr v = unsigned_byte(x({i[0], min(c, k.channels - 1), p / row, p % row}));
                return select(c < k.channels, select(inside, v, cast<uint8_t>(k.zx)),
                              cast<uint8_t>(0));
            });
        });
    PackedConvWeights pw = pack_conv_weights(k.w, tm);
    Tensor point_sums = compute(unique_name("iconv_point_sums"), {n, points}, [&](const Index &i) {
        RDom r(0, 4, 0, blocks, unique_name("iconv_ps"));
        return sum(cast<int32_t>(word_byte(packed_x({i[0], r.y, i[1]}), r.x)));
    });
    Tensor init = compute(unique_name("iconv_acc"), {n, Expr(k.outputs), points},
                          [](const Index &) { return Expr(0); });
    Func f = init.func();
    RDom r(std::vector<std::pair<Expr, Expr>>{{0, 4}, {0, blocks}}, unique_name("iconv_k"));
    const Var bp = init.var(2), bm = init.var(1), bn = init.var(0);
    f(bp, bm, bn) = f(bp, bm, bn) + cast<int32_t>(word_byte(packed_x({bn, r[1], bp}), r[0])) *
                                        cast<int32_t>(pw.packed({r[1], 0, 0, bm, r[0]}));
    Tensor joined =
        compute(unique_name("iconv_joined"), {n, Expr(k.outputs), points}, [&](const Index &i) {
            return k.corrected(
                init(i), i[1],
                [&] {
                    return point_sums({i[0], i[2]});
                },
                pw);
        });
    Tensor out =
        compute(unique_name("iconv"), {n, Expr(k.outputs), height, width}, [&](const Index &o) {
            return joined({o[0], o[1], o[2] * row + o[3]});
        });
    Func px = packed_x.func(), ps = point_sums.func();
    const bool symmetric = k.symmetric;
    Tensor::Schedule tiles =
        joined_row_tiles(width, height, Int(32), tm, false,
                         [f, r](Func consumer, const Var &loop, int vw, int vec, int t) {
                             integer_tile(f, r, consumer, loop, 0, 1, vw, vec, t);
                         });
    out.set_schedule([px, ps, symmetric, tiles](Func y, const Target &target) mutable {
        const int vec = std::max(4, target.natural_vector_size(Int(32)));
        std::vector<Var> pv = px.args(), sv = ps.args();
        Var task("task");
        px.compute_root().vectorize(pv[0], vec).fuse(pv[1], pv[2], task).parallel(task);
        if (!symmetric) {
            // In parallel over pieces of 1024 points: over images alone, one image is one task.
            Var po("po"), pi("pi"), piece("piece");
            ps.compute_root()
                .split(sv[0], po, pi, 1024, TailStrategy::GuardWithIf)
                .vectorize(pi, vec)
                .fuse(po, sv[1], piece)
                .parallel(piece);
        }
        tiles(y, target);
    });
    return out;
}

}  // namespace

Tensor integer_conv(const Tensor &x, const Tensor &w, const Tensor &x_zero_point,
                    const Tensor &w_zero_point, const Tensor &bias, Window window) {
    user_assert(integer_conv_applies(x, w, x_zero_point, window, 1))
        << "integer_conv of \"" << x.func().name() << "\" by \"" << w.func().name()
        << "\": it takes a 2-D convolution (x N x C x H x W, weights M x C x KH x KW, both uint8 "
           "or int8, the weights a constant), one zero point for x and dilation 1; use conv of "
           "subtract_zero_point for others.";
    const int kh = w.data().dim(1).extent(), kw = w.data().dim(0).extent();
    const int channels = w.data().dim(2).extent(), outputs = w.data().dim(3).extent();
    if (window.kernel.empty()) window.kernel = {kh, kw};
    if (window.strides.empty()) window.strides = {1, 1};
    if (window.pads_begin.empty()) window.pads_begin = {Expr(0), Expr(0)};
    if (window.pads_end.empty()) window.pads_end = {Expr(0), Expr(0)};
    const bool x_signed = x.type().is_int();
    const IntegerConvTerms terms{x,
                                 w,
                                 w_zero_point,
                                 bias,
                                 channels,
                                 outputs,
                                 kh,
                                 kw,
                                 w.type().is_int() && zero_constant(w_zero_point),
                                 zero_point_at(x_zero_point, Expr(0)) + (x_signed ? 128 : 0)};
    if (rows_joinable(x, window, 1)) return pointwise_integer_conv(terms);

    const int sy = window.strides[0], sx = window.strides[1];
    const Expr pt = window.pads_begin[0], pl = window.pads_begin[1];
    const Expr n = x.dim(0), h = x.dim(2), wd = x.dim(3);
    const Expr hp = h + pt + window.pads_end[0], wp = wd + pl + window.pads_end[1];
    const Expr oh = (hp - kh) / sy + 1, ow = (wp - kw) / sx + 1;
    const Expr zx = terms.zx;

    // x' padded and packed: (n, channel block, row, column phase, column / stride), four
    // channels' bytes in one 32-bit word (channel 4b + t in byte t). Column ix sits at phase
    // ix % sx, position ix / sx, so that a vector of output columns reads consecutive words for
    // every tap at any stride; a vector of words is built from four dense rows of bytes.
    const int blocks = (channels + 3) / 4;
    const Expr wj = (wp + sx - 1) / sx;
    Tensor packed_x = compute(
        unique_name("iconv_input"), {n, Expr(blocks), hp, Expr(sx), wj}, [&](const Index &i) {
            Expr iy = i[2] - pt, ix = i[4] * sx + i[3] - pl;
            Expr inside = iy >= 0 && iy < h && ix >= 0 && ix < wd;
            return packed_word([&](int t) {
                Expr c = i[1] * 4 + t;
                Expr v = unsigned_byte(
                    x({i[0], min(c, channels - 1), clamp(iy, 0, h - 1), clamp(ix, 0, wd - 1)}));
                return select(c < channels, select(inside, v, cast<uint8_t>(zx)), cast<uint8_t>(0));
            });
        });
    auto x_byte = [&](const Index &i, const Expr &t) { return word_byte(packed_x(i), t); };
    PackedConvWeights pw = pack_conv_weights(w, 2 * kChannelTile);

    // The sum of x' over the real channels at each padded position, then over each window.
    Tensor column_sums =
        compute(unique_name("iconv_channel_sums"), {n, hp, Expr(sx), wj}, [&](const Index &i) {
            RDom r(0, 4, 0, blocks, unique_name("iconv_cs"));
            return sum(cast<int32_t>(x_byte({i[0], r.y, i[1], i[2], i[3]}, r.x)));
        });
    Tensor window_sums =
        compute(unique_name("iconv_window_sums"), {n, oh, ow}, [&](const Index &i) {
            RDom r(0, kw, 0, kh, unique_name("iconv_ws"));
            return sum(column_sums({i[0], i[1] * sy + r.y, r.x % sx, i[2] + r.x / sx}));
        });

    Tensor init = compute(unique_name("iconv_acc"), {n, Expr(outputs), oh, ow},
                          [](const Index &) { return Expr(0); });
    Func f = init.func();
    RDom r(std::vector<std::pair<Expr, Expr>>{{0, 4}, {0, kw}, {0, kh}, {0, blocks}},
           unique_name("iconv_k"));
    const Var bx = init.var(3), by = init.var(2), bm = init.var(1), bn = init.var(0);
    f(bx, by, bm, bn) =
        f(bx, by, bm, bn) +
        cast<int32_t>(x_byte({bn, r[3], by * sy + r[2], r[1] % sx, bx + r[1] / sx}, r[0])) *
            cast<int32_t>(pw.packed({r[3], r[2], r[1], bm, r[0]}));

    Tensor out = compute(unique_name("iconv"), {n, Expr(outputs), oh, ow}, [&](const Index &i) {
        return terms.corrected(
            init(i), i[1],
            [&] {
                return window_sums({i[0], i[2], i[3]});
            },
            pw);
    });

    Func px = packed_x.func(), cs = column_sums.func(), ws = window_sums.func();
    const bool symmetric = terms.symmetric;
    out.set_schedule([f, r, px, cs, ws, symmetric](Func y, const Target &target) mutable {
        const int vec = std::max(4, target.natural_vector_size(Int(32)));
        std::vector<Var> pv = px.args(), cv = cs.args(), wv = ws.args(), ov = y.args();
        // The packed input a row at a time, its four channels' bytes a vector of 4 inside a
        // vector of columns (a dense store); the sums vectorized along the columns.
        px.compute_root().reorder(pv[0], pv[1], pv[3], pv[2]).vectorize(pv[0], vec).parallel(pv[2]);
        if (!symmetric) {
            cs.compute_root().vectorize(cv[0], vec).parallel(cv[2]);
            ws.compute_root().vectorize(wv[0], vec).parallel(wv[1]);
        }
        // Output tiles: two vectors of columns by twelve channels, rows (and images) in
        // parallel; the accumulation per tile in registers.
        Var xo("xo"), xi("xi"), mo("mo"), mi("mi");
        y.split(ov[0], xo, xi, 2 * vec, TailStrategy::GuardWithIf)
            .split(ov[2], mo, mi, kChannelTile, TailStrategy::GuardWithIf)
            .reorder(xi, mi, xo, mo, ov[1], ov[3])
            .vectorize(xi, vec)
            .unroll(xi)
            .unroll(mi);
        Var rows("rows");
        y.fuse(ov[1], ov[3], rows).parallel(rows);
        integer_tile(f, r, y, xo, 0, 2, 2, vec, kChannelTile);
    });
    return out;
}

}  // namespace dsl::nn
